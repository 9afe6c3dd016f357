// bufferutil 4 (already a dependency; ws uses it too) ships no types. Its native masking is the
// same XOR loop ws runs for every masked frame.
declare module 'bufferutil' {
  const bufferUtil: {
    mask(source: Buffer, mask: Buffer, output: Buffer, offset: number, length: number): void;
    unmask(buffer: Buffer, mask: Buffer): void;
  };
  export default bufferUtil;
}
