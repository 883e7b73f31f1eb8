// Reads the shared-chat stream with the standard `eventsource` npm client (as
// pinned in testdata/npm) and prints one JSON line per event or error, so a Go
// test can check what a real EventSource sees across a dropped connection.
// Usage: TOOLS_NPM=<testdata/npm dir> node eventsource-client.cjs URL KEY COUNT
// Exits 0 after COUNT new_message events, 2 after 60 s without them.
'use strict';
const { createRequire } = require('node:module');
const path = require('node:path');
const { EventSource } = createRequire(path.join(process.env.TOOLS_NPM, 'package.json'))('eventsource');

const [url, key, count] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const es = new EventSource(url, {
  // The standard API has no headers; this client lets fetch add the key.
  fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, Authorization: `Bearer ${key}` } }),
});
let seen = 0;
for (const type of ['connected', 'new_message', 'heartbeat']) {
  es.addEventListener(type, (ev) => {
    out({ event: type, id: ev.lastEventId, data: JSON.parse(ev.data) });
    if (type === 'new_message' && ++seen >= Number(count)) {
      es.close();
      process.exit(0);
    }
  });
}
es.addEventListener('error', (err) => out({ event: 'error', message: String(err && err.message) }));
setTimeout(() => {
  out({ event: 'timeout' });
  process.exit(2);
}, 60000);
