// s3rver.js - runs @20minutes/s3rver (the s3rver fork that checks SigV4
// signatures) on 127.0.0.1 for the integration tests. Started by
// tests/servers/s3.sh; version 4.0.4 has no working CLI, hence this file.
//
//   node s3rver.js NODE_MODULES_PARENT PORT DATA_DIR BUCKET
//
// Needs NODE_OPTIONS=--openssl-legacy-provider: s3rver encrypts its
// continuation tokens with DES, which OpenSSL 3 only has in the legacy
// provider (without it, every truncated listing is a 500).
// Credentials: S3RVER / S3RVER (hard-coded in s3rver).
// Environment: S3RVER_TLS_CERT, S3RVER_TLS_KEY  PEM files: serve HTTPS
// (tests/it_security.sh: TLS verification of the S3 client).
'use strict';
const path = require('path');
const fs = require('fs');

const [modules, port, dir, bucket] = process.argv.slice(2);
if (!modules || !port || !dir || !bucket) {
  console.error('usage: node s3rver.js NODE_MODULES_PARENT PORT DATA_DIR BUCKET');
  process.exit(2);
}
const S3rver = require(require.resolve('@20minutes/s3rver', { paths: [modules] }));
fs.mkdirSync(dir, { recursive: true });
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  directory: dir,
  silent: false,
  configureBuckets: [{ name: bucket, configs: [] }],
  ...(process.env.S3RVER_TLS_CERT
    ? { cert: fs.readFileSync(process.env.S3RVER_TLS_CERT), key: fs.readFileSync(process.env.S3RVER_TLS_KEY) }
    : {}),
});
// the bucket exists before the port opens: run() configures, then listens
server.run().then(
  () => console.log(`s3rver: listening on 127.0.0.1:${port}, bucket ${bucket}`),
  (e) => {
    console.error('s3rver: cannot start:', e);
    process.exit(1);
  },
);
process.on('SIGTERM', () => {
  setTimeout(() => process.exit(0), 1000).unref();
  server.close(() => process.exit(0));
});
