/**
 * Content type by magic bytes. The client's declared type and the file name are never trusted:
 * a stored attachment is served back with the type found here.
 */
export const SNIFF_BYTES = 16;

interface Signature {
  type: string;
  matches(head: Buffer): boolean;
}

const ascii = (head: Buffer, offset: number, text: string) =>
  head.length >= offset + text.length && head.toString('latin1', offset, offset + text.length) === text;

const bytes = (head: Buffer, offset: number, values: number[]) =>
  head.length >= offset + values.length && values.every((v, i) => head[offset + i] === v);

const SIGNATURES: readonly Signature[] = [
  { type: 'image/jpeg', matches: (h) => bytes(h, 0, [0xff, 0xd8, 0xff]) },
  { type: 'image/png', matches: (h) => bytes(h, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/webp', matches: (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP') },
  { type: 'image/gif', matches: (h) => ascii(h, 0, 'GIF87a') || ascii(h, 0, 'GIF89a') },
  {
    type: 'image/tiff',
    matches: (h) => bytes(h, 0, [0x49, 0x49, 0x2a, 0x00]) || bytes(h, 0, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  { type: 'application/pdf', matches: (h) => ascii(h, 0, '%PDF-') },
];

/** The media type the first bytes of a file identify, or undefined when none is recognised. */
export function sniffContentType(head: Buffer): string | undefined {
  return SIGNATURES.find((s) => s.matches(head))?.type;
}

/** Every type the sniffer can recognise (the possible values of attachments.allowedTypes). */
export const SNIFFABLE_TYPES: readonly string[] = SIGNATURES.map((s) => s.type);
