import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSerialPorts } from '../../../edge/hardware/serial-ports.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'yard-serial-list-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const udevadmMissing = async () => {
  throw Object.assign(new Error('spawn udevadm ENOENT'), { code: 'ENOENT' });
};

/** A /dev and /sys with a CH340 on ttyUSB0 (with a by-id link), an FTDI on ttyUSB1 and an ACM device. */
function fakeMachine() {
  const dev = join(root, 'dev');
  const sys = join(root, 'sys');
  mkdirSync(join(dev, 'serial', 'by-id'), { recursive: true });
  for (const tty of ['ttyUSB0', 'ttyUSB1', 'ttyACM0', 'ttyS0', 'ttyUSB10']) writeFileSync(join(dev, tty), '');
  symlinkSync('../../ttyUSB0', join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial-if00-port0'));
  const usb = join(sys, 'devices', 'pci0000:00', 'usb1', '1-1', '1-1.3');
  mkdirSync(join(usb, '1-1.3:1.0', 'ttyUSB0'), { recursive: true });
  writeFileSync(join(usb, 'idVendor'), '1a86\n');
  writeFileSync(join(usb, 'idProduct'), '7523\n');
  writeFileSync(join(usb, 'manufacturer'), 'QinHeng\n');
  mkdirSync(join(sys, 'class', 'tty', 'ttyUSB0'), { recursive: true });
  symlinkSync(join(usb, '1-1.3:1.0', 'ttyUSB0'), join(sys, 'class', 'tty', 'ttyUSB0', 'device'));
  return { dev, sys };
}

describe('listing serial ports', () => {
  it("uses serialport's listing when it works", async () => {
    const ports = await listSerialPorts({
      list: async () => [
        {
          path: '/dev/ttyUSB0',
          manufacturer: 'FTDI',
          serialNumber: 'A50285BI',
          vendorId: '0403',
          productId: '6001',
        },
      ],
    });
    expect(ports).toEqual([
      {
        path: '/dev/ttyUSB0',
        manufacturer: 'FTDI',
        serialNumber: 'A50285BI',
        vendorId: '0403',
        productId: '6001',
      },
    ]);
  });

  it('without udevadm scans /dev/serial/by-id first, then the USB and ACM ttys not already listed', async () => {
    const { dev, sys } = fakeMachine();
    const ports = await listSerialPorts({ list: udevadmMissing, devRoot: dev, sysRoot: sys });
    expect(ports).toEqual([
      {
        path: join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial-if00-port0'),
        manufacturer: 'QinHeng',
        vendorId: '1a86',
        productId: '7523',
      },
      { path: join(dev, 'ttyACM0') },
      { path: join(dev, 'ttyUSB1') },
      { path: join(dev, 'ttyUSB10') },
    ]);
  });

  it('never throws: nothing to scan is an empty list', async () => {
    expect(
      await listSerialPorts({ list: udevadmMissing, devRoot: join(root, 'nope'), sysRoot: root }),
    ).toEqual([]);
  });

  it('on this machine (no udevadm in the test image) the real listing falls back instead of failing', async () => {
    await expect(listSerialPorts()).resolves.toBeInstanceOf(Array);
  });
});
