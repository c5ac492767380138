// The package's entries: each name of `exports` (index is the root) and the source module it is.
'use strict';
module.exports = {
  index: 'lib/index',
  server: 'lib/entries/server',
  client: 'lib/entries/client',
  stdio: 'lib/entries/stdio',
  http: 'lib/entries/http',
  'http-client': 'lib/entries/http-client',
  websocket: 'lib/entries/websocket',
  core: 'lib/entries/core',
  auth: 'lib/entries/auth',
  proxy: 'lib/entries/proxy',
  cluster: 'lib/entries/cluster',
  bench: 'lib/entries/bench',
};
