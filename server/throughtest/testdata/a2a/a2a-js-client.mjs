// The A2A JavaScript SDK's client (v1.0) against Switchboard, driven by
// TestJSClient: it prints one JSON line per step and event, and the Go test
// plays the operator between them. Arguments: base URL, API key.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.TOOLS_NPM, 'package.json'));
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = await import(require.resolve('@a2a-js/sdk/client'));
const { Role } = await import(require.resolve('@a2a-js/sdk'));

const [base, key] = process.argv.slice(2);
const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${key}`);
  return fetch(url, { ...init, headers });
};
const out = (step, value) => process.stdout.write(JSON.stringify({ step, value }) + '\n');

const factory = new ClientFactory({ ...ClientFactoryOptions.default, transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })] });
const client = await factory.createFromUrl(base);

const message = (id, text) => ({ message: { messageId: id, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }] } });
const sent = await client.sendMessage(message('js-1', 'Find a plumber\nthe kitchen tap drips'));
out('sent', sent);

for await (const ev of client.sendMessageStream(message('js-2', 'Renew the car insurance'))) {
  out('event', ev);
}

const taskId = sent.id ?? sent.task?.id;
out('canceled', await client.cancelTask({ id: taskId }));
out('got', await client.getTask({ id: taskId }));

// ListTasks (v1.0): every task of the caller, newest status first, paged.
const listAll = { tenant: '', contextId: '', status: 0, pageToken: '' };
out('listed', await client.listTasks({ ...listAll, pageSize: 10, includeArtifacts: true }));
const first = await client.listTasks({ ...listAll, pageSize: 1 });
out('page1', first);
out('page2', await client.listTasks({ ...listAll, pageSize: 1, pageToken: first.nextPageToken }));
