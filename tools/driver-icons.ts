import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';

/**
 * Draws the driver app's icons (a white truck and trailer on the theme blue) and writes them as
 * PNG files to shared/ui/public/driver/icons/, which the build copies to /driver/icons/. The PNGs
 * are committed; run again after changing the drawing: `npx tsx tools/driver-icons.ts`.
 *
 * - icon-192.png, icon-512.png ("any"): a rounded blue square, corners transparent;
 * - icon-maskable-512.png ("maskable"): blue to the edges, the truck inside the safe zone (the
 *   circle of 40 % radius that every launcher mask keeps);
 * - icon-180.png (apple-touch-icon): blue to the edges, iOS rounds it itself.
 */
const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../shared/ui/public/driver/icons');
const BLUE = [0x0b, 0x5c, 0xad] as const;
const WHITE = [0xff, 0xff, 0xff] as const;
/** Samples per pixel side: 4 x 4 = 16 samples give smooth edges. */
const SUPER = 4;

type Paint = 'white' | 'blue';
interface Shape {
  paint: Paint;
  inside(x: number, y: number): boolean;
}

const rect = (paint: Paint, x0: number, y0: number, x1: number, y1: number, r = 0): Shape => ({
  paint,
  inside(x, y) {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    // Rounded corners: outside the corner circle in a corner square is outside.
    const cx = Math.min(Math.max(x, x0 + r), x1 - r);
    const cy = Math.min(Math.max(y, y0 + r), y1 - r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  },
});
const circle = (paint: Paint, cx: number, cy: number, r: number): Shape => ({
  paint,
  inside: (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r,
});

/** The truck in unit coordinates (0..1, y down), about 0.8 wide, centred; later shapes paint over. */
const TRUCK: Shape[] = [
  rect('white', 0.1, 0.27, 0.62, 0.6, 0.025), // trailer box
  rect('blue', 0.16, 0.33, 0.56, 0.345), // the box's rib line
  rect('white', 0.65, 0.36, 0.9, 0.6, 0.035), // cab
  rect('blue', 0.72, 0.4, 0.85, 0.48, 0.015), // cab window
  rect('white', 0.1, 0.6, 0.9, 0.645), // chassis
  circle('blue', 0.24, 0.68, 0.08), // gaps around the wheels
  circle('blue', 0.4, 0.68, 0.08),
  circle('blue', 0.79, 0.68, 0.08),
  circle('white', 0.24, 0.68, 0.062),
  circle('white', 0.4, 0.68, 0.062),
  circle('white', 0.79, 0.68, 0.062),
  circle('blue', 0.24, 0.68, 0.022),
  circle('blue', 0.4, 0.68, 0.022),
  circle('blue', 0.79, 0.68, 0.022),
];

interface IconSpec {
  file: string;
  size: number;
  /** Corner radius of the blue square (unit), 0 for full bleed. */
  corner: number;
  /** Scale of the truck about the centre. */
  scale: number;
}

const ICONS: IconSpec[] = [
  { file: 'icon-192.png', size: 192, corner: 0.2, scale: 0.92 },
  { file: 'icon-512.png', size: 512, corner: 0.2, scale: 0.92 },
  // Safe zone: the truck's farthest corner ends up well inside 0.4 of the centre.
  { file: 'icon-maskable-512.png', size: 512, corner: 0, scale: 0.7 },
  { file: 'icon-180.png', size: 180, corner: 0, scale: 0.85 },
];

/** The paint at one point: the truck over the blue square, or nothing (transparent). */
function paintAt(x: number, y: number, spec: IconSpec): Paint | undefined {
  if (!rect('blue', 0, 0, 1, 1, spec.corner).inside(x, y)) return undefined;
  // The truck is drawn ~0.06 below centre: lift it so its middle sits in the middle.
  const tx = 0.5 + (x - 0.5) / spec.scale;
  const ty = 0.5 + (y - 0.5) / spec.scale + 0.035;
  let paint: Paint = 'blue';
  for (const shape of TRUCK) if (shape.inside(tx, ty)) paint = shape.paint;
  return paint;
}

/** RGBA pixels of one icon, each pixel the average of SUPER x SUPER samples. */
export function drawIcon(spec: IconSpec): Buffer {
  const { size } = spec;
  const pixels = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let white = 0;
      let blue = 0;
      for (let sy = 0; sy < SUPER; sy++) {
        for (let sx = 0; sx < SUPER; sx++) {
          const paint = paintAt((px + (sx + 0.5) / SUPER) / size, (py + (sy + 0.5) / SUPER) / size, spec);
          if (paint === 'white') white++;
          else if (paint === 'blue') blue++;
        }
      }
      const covered = white + blue;
      const o = (py * size + px) * 4;
      if (covered === 0) continue;
      for (let c = 0; c < 3; c++)
        pixels[o + c] = Math.round(((WHITE[c] as number) * white + (BLUE[c] as number) * blue) / covered);
      pixels[o + 3] = Math.round((255 * covered) / (SUPER * SUPER));
    }
  }
  return pixels;
}

/** A PNG file (8-bit RGBA, no interlace) of square RGBA pixels. */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, no filter set, no interlace
  // Each row starts with its filter byte: 0 (none); deflate does the squeezing.
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  mkdirSync(OUT, { recursive: true });
  for (const spec of ICONS) {
    const png = encodePng(spec.size, drawIcon(spec));
    writeFileSync(join(OUT, spec.file), png);
    console.log(`${spec.file}: ${spec.size}x${spec.size}, ${png.length} bytes`);
  }
}
