// Which hosts count as "this device". Its own module so that the message parsers (E7 origins)
// can use it without pulling pairing, keys and tweetnacl into the service worker's bundle.

/** 127.0.0.0/8, ::1 and localhost: the only hosts a plain ws:// relay (or http origin) may have. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === '[::1]') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((o) => Number(o) <= 255);
}
