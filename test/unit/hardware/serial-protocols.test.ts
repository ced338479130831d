import { describe, expect, it } from 'vitest';
import {
  kmtronicFrame,
  lcusFrame,
  modbusCrc16,
  modbusWriteCoil,
  numatoCommand,
  parseModbusReply,
  unaddressable,
} from '../../../edge/hardware/serial-protocols.js';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s/g, ''), 'hex');

describe('LCUS / CH340 frames', () => {
  it('is A0, relay, op, and the sum of the three', () => {
    expect(lcusFrame(1, true)).toEqual(bytes('A0 01 01 A2'));
    expect(lcusFrame(1, false)).toEqual(bytes('A0 01 00 A1'));
    expect(lcusFrame(2, true)).toEqual(bytes('A0 02 01 A3'));
    expect(lcusFrame(8, false)).toEqual(bytes('A0 08 00 A8'));
  });

  it('wraps the checksum to one byte', () => {
    expect(lcusFrame(0x60, true)).toEqual(bytes('A0 60 01 01'));
  });

  it('numbers relays from 1', () => {
    expect(() => lcusFrame(0, true)).toThrow(RangeError);
    expect(unaddressable('serial-lcus', 0, undefined)).toMatch(/1 to 255/);
  });
});

describe('Numato commands', () => {
  it('is ASCII "relay on|off N" ending in a carriage return', () => {
    expect(numatoCommand(0, true).toString('latin1')).toBe('relay on 0\r');
    expect(numatoCommand(9, false).toString('latin1')).toBe('relay off 9\r');
  });

  it('names relays 10-31 with upper-case A-V', () => {
    expect(numatoCommand(10, true).toString('latin1')).toBe('relay on A\r');
    expect(numatoCommand(15, true).toString('latin1')).toBe('relay on F\r');
    expect(numatoCommand(31, false).toString('latin1')).toBe('relay off V\r');
    expect(() => numatoCommand(32, true)).toThrow(RangeError);
  });
});

describe('KMtronic frames', () => {
  it('is FF, relay, op', () => {
    expect(kmtronicFrame(1, true)).toEqual(bytes('FF 01 01'));
    expect(kmtronicFrame(1, false)).toEqual(bytes('FF 01 00'));
    expect(kmtronicFrame(8, true)).toEqual(bytes('FF 08 01'));
    expect(() => kmtronicFrame(0, true)).toThrow(RangeError);
  });
});

describe('Modbus RTU write single coil', () => {
  it('matches the published example frames (unit 1, coils 0 and 1)', () => {
    expect(modbusWriteCoil(1, 0, true)).toEqual(bytes('01 05 00 00 FF 00 8C 3A'));
    expect(modbusWriteCoil(1, 0, false)).toEqual(bytes('01 05 00 00 00 00 CD CA'));
    expect(modbusWriteCoil(1, 1, true)).toEqual(bytes('01 05 00 01 FF 00 DD FA'));
  });

  it('puts the coil address big-endian and the CRC low byte first', () => {
    const frame = modbusWriteCoil(17, 0x0102, true);
    expect([...frame.subarray(0, 6)]).toEqual([17, 0x05, 0x01, 0x02, 0xff, 0x00]);
    const crc = modbusCrc16(frame.subarray(0, 6));
    expect(frame[6]).toBe(crc & 0xff);
    expect(frame[7]).toBe(crc >> 8);
  });

  it('computes CRC-16/MODBUS (check value of "123456789" is 4B37)', () => {
    expect(modbusCrc16(Buffer.from('123456789', 'ascii'))).toBe(0x4b37);
  });

  it('reads the echo as success, function|0x80 as an exception, and checks the CRC', () => {
    const request = modbusWriteCoil(1, 3, true);
    expect(parseModbusReply(request, request.subarray(0, 5))).toEqual({ kind: 'incomplete' });
    expect(parseModbusReply(request, request)).toEqual({ kind: 'ok' });
    const exception = bytes('01 85 02 00 00');
    exception.writeUInt16LE(modbusCrc16(exception.subarray(0, 3)), 3);
    expect(parseModbusReply(request, exception)).toEqual({
      kind: 'exception',
      code: 2,
      meaning: 'illegal data address',
    });
    const corrupted = Buffer.from(request);
    corrupted[7] = (corrupted[7]! + 1) & 0xff;
    expect(parseModbusReply(request, corrupted)).toMatchObject({ kind: 'invalid' });
    expect(parseModbusReply(request, modbusWriteCoil(2, 3, true))).toMatchObject({ kind: 'invalid' });
  });

  it('addresses units 1-247 and coils 0-65535', () => {
    expect(() => modbusWriteCoil(0, 0, true)).toThrow(RangeError);
    expect(() => modbusWriteCoil(248, 0, true)).toThrow(RangeError);
    expect(modbusWriteCoil(247, 65_535, false)).toHaveLength(8);
  });
});
