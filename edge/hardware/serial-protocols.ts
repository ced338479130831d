/**
 * The byte frames the supported serial relay boards understand. Pure functions, so the exact bytes
 * are tested once here and the driver only decides when to send them.
 */

export type SerialBoardKind = 'serial-lcus' | 'serial-numato' | 'serial-kmtronic' | 'serial-modbus';

/** How each board is named to operators (logs, fault messages). */
export const BOARD_NAMES: Record<SerialBoardKind, string> = {
  'serial-lcus': 'LCUS relay board',
  'serial-numato': 'Numato relay module',
  'serial-kmtronic': 'KMtronic relay board',
  'serial-modbus': 'Modbus relay board',
};

export function isSerialBoard(driver: string): driver is SerialBoardKind {
  return driver in BOARD_NAMES;
}

/** LCUS / CH340 boards: `A0 <relay> <0|1> <sum>`, relay from 1, sum = (A0 + relay + op) & FF. */
export function lcusFrame(relay: number, energised: boolean): Buffer {
  checkRange('LCUS relay number', relay, 1, 255);
  const op = energised ? 0x01 : 0x00;
  return Buffer.from([0xa0, relay, op, (0xa0 + relay + op) & 0xff]);
}

/**
 * Numato USB relay modules speak a text console: `relay on N\r`. N is one character: 0-9, then
 * upper-case A-V for relays 10-31 (the firmware reads only the first character after the space, and
 * lower-case letters are ignored).
 */
export function numatoCommand(index: number, energised: boolean): Buffer {
  checkRange('Numato relay index', index, 0, 31);
  return Buffer.from(`relay ${energised ? 'on' : 'off'} ${numatoRelayId(index)}\r`, 'ascii');
}

export function numatoRelayId(index: number): string {
  return index < 10 ? String(index) : String.fromCharCode(0x41 + index - 10);
}

/** KMtronic boards: `FF <relay> <0|1>`, relay from 1. */
export function kmtronicFrame(relay: number, energised: boolean): Buffer {
  checkRange('KMtronic relay number', relay, 1, 255);
  return Buffer.from([0xff, relay, energised ? 0x01 : 0x00]);
}

/** Modbus RTU "write single coil" (function 05): on is FF00, off is 0000, CRC16 low byte first. */
export function modbusWriteCoil(unitId: number, coil: number, energised: boolean): Buffer {
  checkRange('Modbus unit id', unitId, 1, 247);
  checkRange('Modbus coil address', coil, 0, 0xffff);
  const frame = Buffer.from([unitId, 0x05, coil >> 8, coil & 0xff, energised ? 0xff : 0x00, 0x00, 0, 0]);
  frame.writeUInt16LE(modbusCrc16(frame.subarray(0, 6)), 6);
  return frame;
}

/** CRC-16/MODBUS: init FFFF, reflected polynomial A001. */
export function modbusCrc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

export function hasValidModbusCrc(frame: Uint8Array): boolean {
  if (frame.length < 4) return false;
  const body = frame.subarray(0, frame.length - 2);
  const crc = (frame[frame.length - 2] ?? 0) | ((frame[frame.length - 1] ?? 0) << 8);
  return modbusCrc16(body) === crc;
}

const MODBUS_EXCEPTIONS: Record<number, string> = {
  1: 'illegal function',
  2: 'illegal data address',
  3: 'illegal data value',
  4: 'server device failure',
  5: 'acknowledge',
  6: 'server device busy',
};

/** What the bytes received after a write-coil request say. */
export type ModbusReply =
  | { kind: 'incomplete' }
  | { kind: 'ok' }
  | { kind: 'exception'; code: number; meaning: string }
  | { kind: 'invalid'; reason: string };

/**
 * Decodes a board's answer to `request` (a write single coil frame). A normal answer echoes the
 * request; an exception answer is unit, function | 0x80, exception code, CRC.
 */
export function parseModbusReply(request: Uint8Array, received: Uint8Array): ModbusReply {
  if (received.length < 2) return { kind: 'incomplete' };
  if (received[0] !== request[0]) return { kind: 'invalid', reason: `answer from unit ${received[0]}` };
  if (received[1] === ((request[1] ?? 0) | 0x80)) {
    if (received.length < 5) return { kind: 'incomplete' };
    const frame = received.subarray(0, 5);
    if (!hasValidModbusCrc(frame)) return { kind: 'invalid', reason: 'exception answer with a bad CRC' };
    const code = frame[2] ?? 0;
    return { kind: 'exception', code, meaning: MODBUS_EXCEPTIONS[code] ?? 'unknown exception' };
  }
  if (received.length < request.length) return { kind: 'incomplete' };
  const frame = received.subarray(0, request.length);
  if (!hasValidModbusCrc(frame)) return { kind: 'invalid', reason: 'answer with a bad CRC' };
  if (!Buffer.from(frame).equals(Buffer.from(request))) {
    return { kind: 'invalid', reason: `answer ${hex(frame)} does not echo the request ${hex(request)}` };
  }
  return { kind: 'ok' };
}

/** Why a board cannot address this relay (channel or unit out of range), or undefined when it can. */
export function unaddressable(
  kind: SerialBoardKind,
  channel: number,
  unitId: number | undefined,
): string | undefined {
  try {
    if (kind === 'serial-lcus') lcusFrame(channel, false);
    else if (kind === 'serial-numato') numatoCommand(channel, false);
    else if (kind === 'serial-kmtronic') kmtronicFrame(channel, false);
    else modbusWriteCoil(unitId ?? 1, channel, false);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString('hex')
    .replace(/(..)(?=.)/g, '$1 ');
}

function checkRange(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be ${min} to ${max}, got ${value}`);
  }
}
