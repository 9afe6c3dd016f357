// Assembles the hot path's WebAssembly module from the WAT in relay/control-scan.ts's comment,
// instruction by instruction (opcodes from the WebAssembly core and SIMD specs), so a test can
// check that the base64 shipped in control-scan.ts is exactly that source.

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};

const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const v128 = (bytes: number[]) => [0xfd, 0x0c, ...bytes];
const splat = (byte: number) => v128(Array<number>(16).fill(byte));
/** 16 bytes: the text's bytes, then `fill` for the lanes a mask ignores. */
const text16 = (s: string, fill = 0) =>
  v128([...Buffer.from(s, 'latin1'), ...Array<number>(16 - s.length).fill(fill)]);
const load = (offset: number) => [0xfd, 0x00, 0x00, ...leb(offset)];
const store = (offset: number) => [0xfd, 0x0b, 0x00, ...leb(offset)];
const load8 = [0x2d, 0x00, 0x00];
const simd = (op: number) => [0xfd, ...leb(op)];
const [EQ, LT_S, LT_U, XOR, OR, ANY_TRUE, ALL_TRUE, BITMASK, MIN_S, MIN_U, SPLAT] = [
  0x23, 0x25, 0x26, 0x51, 0x50, 0x53, 0x63, 0x64, 0x76, 0x77, 0x0f,
].map(simd) as number[][];
const [I32_EQZ, I32_EQ, I32_NE, I32_LT_U, I32_GT_U, I32_GE_U] = [
  [0x45],
  [0x46],
  [0x47],
  [0x49],
  [0x4b],
  [0x4f],
] as number[][];
const [I32_CTZ, I32_ADD, I32_SUB, I32_AND, I32_OR] = [
  [0x68],
  [0x6a],
  [0x6b],
  [0x71],
  [0x72],
] as number[][];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const ELSE = [0x05];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const RETURN = [0x0f];
const ret = (n: number) => [...i32(n), ...RETURN];

/** clean(i, end): 1 when [i, end) holds no backslash and no byte below 0x20. */
function clean(): number[] {
  const [I, END_, V, C20, C5C, CA, LOW, BS, S0] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const quarters = (f: (offset: number, k: number) => number[]) =>
    [0, 16, 32, 48].flatMap((o, k) => f(o, k));
  const body = [
    ...splat(0x20), ...set(C20), ...splat(0x5c), ...set(C5C), ...splat(0x41), ...set(CA),
    ...splat(0xff), ...tee(LOW), ...set(BS),
    ...quarters((o, k) => [...get(END_), ...load(o), ...set(S0 + k)]),
    ...quarters((o) => [...get(END_), ...get(CA), ...store(o)]),
    ...BLOCK, ...LOOP,
    ...get(I), ...get(END_), ...I32_GE_U!, ...brIf(1),
    ...quarters((o) => [
      ...get(I), ...load(o), ...tee(V), ...get(LOW), ...MIN_U!, ...set(LOW),
      ...get(V), ...get(C5C), ...XOR!, ...get(BS), ...MIN_U!, ...set(BS),
    ]),
    ...get(I), ...i32(64), ...I32_ADD!, ...set(I), ...br(0),
    ...END, ...END,
    ...quarters((o, k) => [...get(END_), ...get(S0 + k), ...store(o)]),
    ...get(LOW), ...get(C20), ...LT_U!, ...get(BS), ...splat(0), ...EQ!, ...OR!, ...ANY_TRUE!,
    ...I32_EQZ!,
    ...END,
  ]; // prettier-ignore
  return [0x01, 0x0a, 0x7b, ...body]; // locals: 10 × v128 (after the 2 i32 params)
}

/** scan(len): the canonical no-push / push:null msg envelope of the loaded frame (see WAT). */
function scan(): number[] {
  // param 0 = len; i32 locals 1..6; v128 locals 7..10
  const [LEN, I, ROOM_END, P_START, P_END, BITS, B, V, CTL, BQ, X] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
  ];
  const PREFIX = '{"kind":"msg","room":"';
  // step(o): fold the 16 bytes at i + o into the signed minimum (a lane below 0x20 means a
  // control byte or a byte >= 0x80) and the quote/backslash minimum
  const step = (o: number) => [
    ...get(CTL), ...get(I), ...load(o), ...tee(V), ...MIN_S!, ...set(CTL),
    ...get(V), ...splat(0x22), ...XOR!, ...set(X),
    ...get(BQ), ...get(X), ...get(X), ...splat(0x7e), ...XOR!, ...MIN_U!, ...MIN_U!, ...set(BQ),
  ]; // prettier-ignore
  const body = [
    // prefix: bytes 0..15 and 6..21
    ...i32(0), ...load(0), ...text16(PREFIX.slice(0, 16)), ...EQ!, ...ALL_TRUE!, ...I32_EQZ!,
    ...IF, ...ret(0), ...END,
    ...i32(0), ...load(6), ...text16(PREFIX.slice(6, 22)), ...EQ!, ...ALL_TRUE!, ...I32_EQZ!,
    ...IF, ...ret(0), ...END,
    // the room's closing quote
    ...i32(22), ...set(I),
    ...BLOCK, ...LOOP,
    ...get(I), ...load(0), ...splat(0x22), ...EQ!, ...BITMASK!, ...tee(BITS), ...brIf(1),
    ...get(I), ...i32(16), ...I32_ADD!, ...tee(I), ...get(LEN), ...I32_LT_U!, ...brIf(0),
    ...ret(0),
    ...END, ...END,
    ...get(I), ...get(BITS), ...I32_CTZ!, ...I32_ADD!, ...tee(ROOM_END),
    ...i32(13), ...I32_ADD!, ...tee(P_START), ...get(LEN), ...I32_GT_U!, ...IF, ...ret(0), ...END,
    // `","payload":"` right after it
    ...get(ROOM_END), ...load(0), ...text16('","payload":"'), ...EQ!, ...BITMASK!,
    ...i32(0x1fff), ...I32_AND!, ...i32(0x1fff), ...I32_NE!, ...IF, ...ret(0), ...END,
    // the tail: `"}` or `","push":null}`; anything else may carry a push object (-1)
    ...get(LEN), ...i32(1), ...I32_SUB!, ...load8, ...i32(0x7d), ...I32_EQ!,
    ...get(LEN), ...i32(2), ...I32_SUB!, ...load8, ...i32(0x22), ...I32_EQ!, ...I32_AND!,
    ...IF,
    ...get(LEN), ...i32(2), ...I32_SUB!, ...set(P_END),
    ...ELSE,
    ...get(LEN), ...i32(16), ...I32_SUB!, ...load(0), ...v128([0, 0, ...Buffer.from('","push":null}')]),
    ...EQ!, ...BITMASK!, ...i32(0xfffc), ...I32_AND!, ...i32(0xfffc), ...I32_NE!,
    ...IF, ...ret(-1), ...END,
    ...get(LEN), ...i32(14), ...I32_SUB!, ...set(P_END),
    ...END,
    ...get(P_END), ...get(P_START), ...I32_LT_U!, ...IF, ...ret(0), ...END,
    // the payload [pStart, pEnd): 64, then 16 bytes per turn, then byte by byte
    ...get(P_START), ...set(I), ...splat(0x7f), ...tee(CTL), ...set(BQ),
    ...BLOCK, ...LOOP,
    ...get(I), ...i32(64), ...I32_ADD!, ...get(P_END), ...I32_GT_U!, ...brIf(1),
    ...step(0), ...step(16), ...step(32), ...step(48),
    ...get(I), ...i32(64), ...I32_ADD!, ...set(I), ...br(0),
    ...END, ...END,
    ...BLOCK, ...LOOP,
    ...get(I), ...i32(16), ...I32_ADD!, ...get(P_END), ...I32_GT_U!, ...brIf(1),
    ...step(0),
    ...get(I), ...i32(16), ...I32_ADD!, ...set(I), ...br(0),
    ...END, ...END,
    ...BLOCK, ...LOOP,
    ...get(I), ...get(P_END), ...I32_GE_U!, ...brIf(1),
    ...get(I), ...load8, ...tee(B), ...i32(0x22), ...I32_EQ!,
    ...get(B), ...i32(0x5c), ...I32_EQ!, ...I32_OR!,
    ...IF, ...ret(0), ...END,
    ...get(CTL), ...get(B), ...SPLAT!, ...MIN_S!, ...set(CTL),
    ...get(I), ...i32(1), ...I32_ADD!, ...set(I), ...br(0),
    ...END, ...END,
    ...get(BQ), ...splat(0), ...EQ!, ...ANY_TRUE!, ...IF, ...ret(0), ...END,
    // a control byte (invalid JSON) or non-ASCII (valid UTF-8 was not checked here): the
    // field-by-field path decides exactly
    ...get(CTL), ...splat(0x20), ...LT_S!, ...ANY_TRUE!, ...IF, ...ret(-1), ...END,
    ...get(ROOM_END),
    ...END,
  ]; // prettier-ignore
  return [0x02, 0x06, 0x7f, 0x04, 0x7b, ...body]; // locals: 6 × i32, 4 × v128
}

export function assembleScanner(): Buffer {
  const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
  const name = (s: string) => [s.length, ...Buffer.from(s)];
  const code = (f: number[]) => [...leb(f.length), ...f];
  return Buffer.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // types: 0 = (i32, i32) -> i32, 1 = (i32) -> i32
    ...section(1, [0x02, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x01, 0x7f]),
    ...section(3, [0x02, 0x00, 0x01]),
    ...section(5, [0x01, 0x00, 0x01]), // one 64 KiB page
    ...section(7, [
      0x03,
      ...name('clean'),
      0x00,
      0x00,
      ...name('scan'),
      0x00,
      0x01,
      ...name('mem'),
      0x02,
      0x00,
    ]),
    ...section(10, [0x02, ...code(clean()), ...code(scan())]),
  ]);
}
