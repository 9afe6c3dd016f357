// Renders the app icons (public/icons/*.png) from the same geometry as public/favicon.svg, with no
// image tool installed: a signed-distance rasteriser with 4×4 supersampling and a PNG writer on
// node:zlib. Run `npx tsx scripts/icons.ts` after changing the design; the PNGs are committed.
import { deflateSync } from 'node:zlib';
import { writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Rgba = readonly [number, number, number, number];
const BLUE: Rgba = [0x1d, 0x4e, 0xd8, 255];
const WHITE: Rgba = [255, 255, 255, 255];
/** The ">_" glyph of favicon.svg in its 64-unit box: two polylines, stroke 6, round caps/joins. */
const GLYPH_SEGMENTS = [
  [18, 20, 32, 32],
  [32, 32, 18, 44],
  [34, 44, 46, 44],
] as const;
const SUPERSAMPLE = 4;

type IconSpec = {
  file: string;
  size: number;
  /** null: transparent background (the monochrome notification badge). */
  background: Rgba | null;
  cornerRadiusUnits: number;
  /** Maskable icons keep the glyph inside the 80 % safe zone. */
  glyphScale: number;
  strokeUnits: number;
};

const ICONS: IconSpec[] = [
  {
    file: 'icon-192.png',
    size: 192,
    background: BLUE,
    cornerRadiusUnits: 14,
    glyphScale: 1,
    strokeUnits: 6,
  },
  {
    file: 'icon-512.png',
    size: 512,
    background: BLUE,
    cornerRadiusUnits: 14,
    glyphScale: 1,
    strokeUnits: 6,
  },
  {
    file: 'maskable-192.png',
    size: 192,
    background: BLUE,
    cornerRadiusUnits: 0,
    glyphScale: 0.6,
    strokeUnits: 6,
  },
  {
    file: 'maskable-512.png',
    size: 512,
    background: BLUE,
    cornerRadiusUnits: 0,
    glyphScale: 0.6,
    strokeUnits: 6,
  },
  // iOS rounds the corners itself and shows transparency as black: a full, opaque square.
  {
    file: 'apple-touch-icon-180.png',
    size: 180,
    background: BLUE,
    cornerRadiusUnits: 0,
    glyphScale: 0.75,
    strokeUnits: 6,
  },
  {
    file: 'badge-96.png',
    size: 96,
    background: null,
    cornerRadiusUnits: 0,
    glyphScale: 1.15,
    strokeUnits: 7,
  },
];

function segmentDistance(px: number, py: number, [ax, ay, bx, by]: readonly number[]): number {
  const dx = bx! - ax!;
  const dy = by! - ay!;
  const t = Math.max(0, Math.min(1, ((px - ax!) * dx + (py - ay!) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax! + t * dx), py - (ay! + t * dy));
}

function insideRoundedSquare(x: number, y: number, r: number): boolean {
  if (x < 0 || y < 0 || x > 64 || y > 64) return false;
  const cx = Math.min(Math.max(x, r), 64 - r);
  const cy = Math.min(Math.max(y, r), 64 - r);
  return Math.hypot(x - cx, y - cy) <= r;
}

function render(spec: IconSpec): Buffer {
  const { size } = spec;
  const pixels = Buffer.alloc(size * size * 4);
  const unitsPerPixel = 64 / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const ux = (x + (sx + 0.5) / SUPERSAMPLE) * unitsPerPixel;
          const uy = (y + (sy + 0.5) / SUPERSAMPLE) * unitsPerPixel;
          if (spec.background && insideRoundedSquare(ux, uy, spec.cornerRadiusUnits)) bg++;
          // Undo the glyph's scale about the centre to test against the unscaled geometry.
          const gx = 32 + (ux - 32) / spec.glyphScale;
          const gy = 32 + (uy - 32) / spec.glyphScale;
          const half = spec.strokeUnits / 2;
          if (GLYPH_SEGMENTS.some((s) => segmentDistance(gx, gy, s) <= half)) fg++;
        }
      }
      const n = SUPERSAMPLE * SUPERSAMPLE;
      const bgA = bg / n;
      const fgA = fg / n;
      const base = spec.background ?? WHITE;
      // "fg over bg" compositing in straight alpha.
      const alpha = fgA + bgA * (1 - fgA);
      const mix = (i: number) =>
        alpha === 0 ? 0 : (WHITE[i]! * fgA + base[i]! * bgA * (1 - fgA)) / alpha;
      const o = (y * size + x) * 4;
      pixels[o] = Math.round(mix(0));
      pixels[o + 1] = Math.round(mix(1));
      pixels[o + 2] = Math.round(mix(2));
      pixels[o + 3] = Math.round(alpha * 255);
    }
  }
  return encodePng(size, size, pixels);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  // Each scanline starts with filter type 0 (none).
  const raw = Buffer.alloc(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const outDir = fileURLToPath(new URL('../public/icons/', import.meta.url));
mkdirSync(outDir, { recursive: true });
for (const spec of ICONS) {
  writeFileSync(outDir + spec.file, render(spec));
  console.log(`public/icons/${spec.file} ${spec.size}×${spec.size}`);
}
