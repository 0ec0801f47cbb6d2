// A mock GraphQL upstream for gqlnav-serve tests: graphql-yoga + @graphql-tools/mock over
// an SDL file or an introspection JSON file. Listens on 127.0.0.1:<random port> and prints
// "LISTENING <port>" on stdout. Extra routes for safety tests:
//   GET  /seen      -> the request headers of the last GraphQL request (JSON)
//   POST /redirect  -> 302 to /graphql (must not be followed)
//   POST /big       -> a 10 MB JSON body
//   POST /slow      -> answers after 5 s
// Usage: node upstream.js SCHEMA_FILE
const fs = require('fs');
const http = require('http');
const { buildSchema, buildClientSchema } = require('graphql');
const { addMocksToSchema } = require('@graphql-tools/mock');
const { createYoga } = require('graphql-yoga');

const file = process.argv[2];
const text = fs.readFileSync(file, 'utf8');
const base = file.endsWith('.json')
  ? buildClientSchema(JSON.parse(text).data || JSON.parse(text))
  : buildSchema(text, { assumeValid: true });
const mocks = { DateTime: () => '2024-01-01T00:00:00Z', URI: () => 'https://example.com',
  HTML: () => '<p>x</p>', GitObjectID: () => 'abc123', JSON: () => ({}), JSONObject: () => ({}),
  TimelessDate: () => '2024-01-01', UUID: () => '00000000-0000-0000-0000-000000000000' };
const schema = addMocksToSchema({ schema: base, mocks, preserveResolvers: false });
const yoga = createYoga({ schema, graphqlEndpoint: '/graphql', logging: false, maskedErrors: false });
let seen = {};
const server = http.createServer((req, res) => {
  if (req.url === '/seen') { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(seen)); return; }
  if (req.url === '/redirect') { res.statusCode = 302; res.setHeader('location', '/graphql'); res.end(); return; }
  if (req.url === '/big') { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ data: { x: 'y'.repeat(10 * 1024 * 1024) } })); return; }
  if (req.url === '/slow') { setTimeout(() => { res.setHeader('content-type', 'application/json'); res.end('{"data":{}}'); }, 5000); return; }
  if (req.url.startsWith('/graphql')) { seen = req.headers; }
  yoga(req, res);
});
server.listen(0, '127.0.0.1', () => { console.log('LISTENING ' + server.address().port); });
