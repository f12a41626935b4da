// fault-proxy.js - an HTTP proxy on 127.0.0.1 that answers the first N
// requests of a method with a fault, then passes every request through to
// the real server unchanged (headers, Host included, so that a SigV4
// signature made for the proxy's address still verifies upstream).
// tests/it_upload.sh puts it in front of s3rver to answer one PUT with
// S3's "503 SlowDown", as S3 does under load.
//
//   node fault-proxy.js PORT UPSTREAM_PORT METHOD COUNT STATUS CODE MESSAGE
//
// Each request is logged on stdout as "METHOD URL -> STATUS (fault|passed)".
'use strict';
const http = require('http');

const [port, upstream, method, count, status, code, message] = process.argv.slice(2);
if (!port || !upstream || !method || !count || !status || !code || !message) {
  console.error('usage: node fault-proxy.js PORT UPSTREAM_PORT METHOD COUNT STATUS CODE MESSAGE');
  process.exit(2);
}
let faults = Number(count);

const server = http.createServer((req, res) => {
  if (req.method === method && faults > 0) {
    faults--;
    // the request's body is read and dropped, as a server that refuses it does
    req.resume();
    req.on('end', () => {
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + code + '</Code><Message>' +
        message + '</Message><Resource>' + req.url + '</Resource><RequestId>fault-proxy</RequestId></Error>';
      res.writeHead(Number(status), { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      console.log(`${req.method} ${req.url} -> ${status} (fault)`);
    });
    return;
  }
  const up = http.request({ host: '127.0.0.1', port: Number(upstream), method: req.method, path: req.url,
    headers: req.headers }, (ur) => {
    res.writeHead(ur.statusCode, ur.headers);
    ur.pipe(res);
    console.log(`${req.method} ${req.url} -> ${ur.statusCode} (passed)`);
  });
  up.on('error', (e) => {
    res.writeHead(502);
    res.end(String(e));
    console.log(`${req.method} ${req.url} -> 502 (${e.code})`);
  });
  req.pipe(up);
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening on 127.0.0.1:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
