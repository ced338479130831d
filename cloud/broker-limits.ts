import type { Duplex } from 'node:stream';

/**
 * Packet size limits of the embedded broker. Aedes 1.x (and its mqtt-packet parser) has no maximum
 * packet size: it buffers whatever remaining length a client declares, up to MQTT's 256 MB, even
 * before the client has logged in. So the broker reads each packet's fixed header itself and cuts
 * the connection as soon as a packet declares more than the limit, before its body is buffered.
 */
export interface PacketLimits {
  /** The first packet (CONNECT, sent before any login check): client id, credentials, will. */
  firstBytes: number;
  /** Every later packet. */
  maxBytes: number;
}

/**
 * Watches the MQTT fixed headers (MQTT 3.1.1 section 2.2: one type byte, then the remaining length
 * in 1-4 bytes of 7 bits each) of the bytes a client sends and destroys the socket when a packet
 * is larger than its limit, or its length field is malformed.
 *
 * It listens to 'data' next to Aedes' 'readable' handler: with a 'readable' listener the stream is
 * not flowing and 'data' is emitted for exactly the chunks Aedes reads, before its parser sees them.
 */
export function limitPacketSize(
  socket: Duplex,
  limits: PacketLimits,
  onRefused: (declaredBytes: number) => void,
): void {
  let packets = 0;
  /** Bytes of the current packet's body still to come. */
  let skip = 0;
  /** Undefined while waiting for a type byte; else the length read so far and its byte count. */
  let length: { value: number; bytes: number } | undefined;

  const refuse = (declared: number) => {
    socket.removeListener('data', onData);
    onRefused(declared);
    socket.destroy();
  };

  function onData(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      if (length === undefined) {
        length = { value: 0, bytes: 0 };
        i += 1; // the packet type and flags
        continue;
      }
      const byte = chunk[i]!;
      i += 1;
      length.value += (byte & 0x7f) * 128 ** length.bytes;
      length.bytes += 1;
      if (byte & 0x80) {
        if (length.bytes === 4) {
          refuse(Number.POSITIVE_INFINITY); // a fifth length byte: malformed
          return;
        }
        continue;
      }
      const total = 1 + length.bytes + length.value;
      const limit = packets === 0 ? limits.firstBytes : limits.maxBytes;
      if (total > limit) {
        refuse(total);
        return;
      }
      packets += 1;
      skip = length.value;
      length = undefined;
    }
  }

  socket.on('data', onData);
}
