// Which moves a side may make on an engagement in each state: what
// server/economy/rules/rules.go's table allows, so a contract's page offers
// only the buttons the server would take. The server stays the judge: a move
// refused anyway (a stale page, the other side was quicker) shows the
// server's words. ADAPTER(contract-moves): the Contract message carries no
// list of its moves; were it to (a repeated contract_move of the caller's
// side), this table goes and nothing else in the views changes.
import { ContractMove as M, ContractRole as R, ContractStatus as S } from "../gen/vocabulary_terms";

type Row = { by: string[]; from: string[] };

const both = [R.Client, R.Provider];
const working = [S.Active, S.Delivered, S.Disputed];

// The operator's moves of the table (resolve is the admin's, expire the
// timer's, answer is made on the question's queue item, review has its form).
const table = new Map<string, Row>([
  [M.Accept, { by: [R.Provider], from: [S.Offered] }],
  [M.Decline, { by: [R.Provider], from: [S.Offered] }],
  [M.Withdraw, { by: [R.Client], from: [S.Offered] }],
  [M.Deliver, { by: [R.Provider], from: [S.Active, S.Delivered] }],
  [M.Close, { by: [R.Client], from: [S.Delivered] }],
  [M.Dispute, { by: both, from: [S.Active, S.Delivered] }],
  [M.Update, { by: both, from: working }],
  [M.Question, { by: both, from: working }],
  [M.Scope, { by: [R.Client], from: [S.Active] }],
  [M.ScopeAccept, { by: [R.Provider], from: [S.Active] }],
  [M.ScopeDecline, { by: [R.Provider], from: [S.Active] }],
  [M.SuggestClose, { by: [R.Provider], from: [S.Active, S.Delivered] }],
  [M.Review, { by: both, from: [S.Closed] }],
]);

// may says whether side may make move on a contract in status.
export function may(move: string, side: string, status: string): boolean {
  const r = table.get(move);
  return !!r && r.by.includes(side) && r.from.includes(status);
}

// movesOf lists the moves side may make in status, in the table's order.
export function movesOf(side: string, status: string): string[] {
  return [...table.keys()].filter((m) => may(m, side, status));
}
