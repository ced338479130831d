import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SerialPort } from 'serialport';

export interface SerialPortInfo {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  vendorId?: string;
  productId?: string;
}

export interface ListSerialPortsOptions {
  /** The listing to try first; default serialport's, which needs `udevadm`. */
  list?: () => Promise<Array<Partial<SerialPortInfo> & { path: string }>>;
  /** Roots of the fallback scan (tests point them at a fake tree). */
  devRoot?: string;
  sysRoot?: string;
}

/**
 * The serial ports an operator can bind a relay board to. serialport's listing asks `udevadm`, which
 * minimal images lack; then this scans /dev/serial/by-id (stable names, preferred for relay.device)
 * and /dev/ttyUSB*, /dev/ttyACM*, reading USB ids from sysfs. Never throws: an empty list at worst.
 */
export async function listSerialPorts(options: ListSerialPortsOptions = {}): Promise<SerialPortInfo[]> {
  try {
    const ports = await (options.list ?? (() => SerialPort.list()))();
    return ports.map((p) => clean({ ...p }));
  } catch {
    return scanDev(options.devRoot ?? '/dev', options.sysRoot ?? '/sys').catch(() => []);
  }
}

async function scanDev(devRoot: string, sysRoot: string): Promise<SerialPortInfo[]> {
  const ports: SerialPortInfo[] = [];
  const covered = new Set<string>();
  const byId = join(devRoot, 'serial', 'by-id');
  for (const name of (await readdir(byId).catch(() => [] as string[])).sort()) {
    const link = join(byId, name);
    const target = await realpath(link).catch(() => undefined);
    if (!target) continue;
    covered.add(basename(target));
    ports.push(clean({ path: link, ...(await usbIdentity(sysRoot, basename(target))) }));
  }
  const ttys = (await readdir(devRoot).catch(() => [] as string[]))
    .filter((name) => /^tty(USB|ACM)\d+$/.test(name))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  for (const tty of ttys) {
    if (covered.has(tty)) continue;
    ports.push(clean({ path: join(devRoot, tty), ...(await usbIdentity(sysRoot, tty)) }));
  }
  return ports;
}

/** USB ids of a tty from sysfs: walk up from the tty's device to the USB device holding idVendor. */
async function usbIdentity(sysRoot: string, tty: string): Promise<Omit<SerialPortInfo, 'path'>> {
  let dir = await realpath(join(sysRoot, 'class', 'tty', tty, 'device')).catch(() => undefined);
  for (let depth = 0; dir && depth < 5; depth++, dir = dirname(dir)) {
    const read = (file: string) =>
      readFile(join(dir!, file), 'utf8').then(
        (t) => t.trim(),
        () => undefined,
      );
    const vendorId = await read('idVendor');
    if (vendorId === undefined) continue;
    return {
      vendorId,
      productId: await read('idProduct'),
      manufacturer: await read('manufacturer'),
      serialNumber: await read('serial'),
    };
  }
  return {};
}

/** Drops fields that are undefined (the API answers only what is known). */
function clean(port: Partial<SerialPortInfo> & { path: string }): SerialPortInfo {
  const out: SerialPortInfo = { path: port.path };
  if (port.manufacturer) out.manufacturer = port.manufacturer;
  if (port.serialNumber) out.serialNumber = port.serialNumber;
  if (port.vendorId) out.vendorId = port.vendorId;
  if (port.productId) out.productId = port.productId;
  return out;
}
