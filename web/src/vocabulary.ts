// The contract's enumerated value sets and their labels, read from the
// descriptors protoc-gen-es embeds (proto/switchboard/v1/vocabulary.proto), so
// the dashboard's choices and words cannot drift from what the server accepts.
import { getOption } from "@bufbuild/protobuf";
import { vocabularies, type Vocabulary } from "./gen/switchboard/v1/options_pb";
import { file_switchboard_v1_vocabulary } from "./gen/switchboard/v1/vocabulary_pb";

export interface Term {
  value: string;
  label: string;
}

const declared = new Map<string, Vocabulary>(
  getOption(file_switchboard_v1_vocabulary, vocabularies).map((v) => [v.name, v]),
);

function resolve(name: string, seen: string[] = []): Term[] {
  const v = declared.get(name);
  if (!v || seen.includes(name)) throw new Error(`the contract declares no vocabulary ${name}`);
  const own = v.terms.map((t) => ({ value: t.value, label: t.label }));
  return own.concat(...v.includes.map((inc) => resolve(inc, [...seen, name])));
}

// terms answers a vocabulary's values with their labels, in declared order.
export function terms(name: string): Term[] {
  return resolve(name);
}

export function values(name: string): string[] {
  return resolve(name).map((t) => t.value);
}

// termLabel answers the contract's words for a value; a value the vocabulary
// does not hold (an older server's, say) is shown as it came.
export function termLabel(name: string, value: string): string {
  return resolve(name).find((t) => t.value === value)?.label ?? value;
}
