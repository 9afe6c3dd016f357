// Preloaded (`node --import`) into a child process that must reach a test host name the way
// Chromium does with --host-resolver-rules: DSH_E2E_MAP_HOST (e.g. "dsh.test") resolves to
// 127.0.0.1; every other name resolves as usual. TLS, SNI and certificate checks are untouched.
import dns from 'node:dns';

const host = process.env.DSH_E2E_MAP_HOST;
const systemLookup = dns.lookup;
if (host) {
  dns.lookup = function lookup(hostname, options, callback) {
    const cb = typeof options === 'function' ? options : callback;
    const o = typeof options === 'object' && options !== null ? options : {};
    if (hostname !== host) return systemLookup.call(this, hostname, options, callback);
    if (o.all) return process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
    return process.nextTick(cb, null, '127.0.0.1', 4);
  };
}
