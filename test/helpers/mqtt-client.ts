import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';

/**
 * One MQTT 3.1.1 connection attempt, no reconnects: resolves on CONNACK, rejects with the broker's
 * refusal (or when the socket closes first). For tests of broker logins and topic rules.
 */
export function connectOnce(
  url: string,
  username: string,
  password: string | undefined,
  clientId: string,
  extra: IClientOptions = {},
): { client: MqttClient; connected: Promise<MqttClient> } {
  const client = mqtt.connect(url, {
    username,
    password,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    clientId,
    ...extra,
  });
  const connected = new Promise<MqttClient>((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', (err) => reject(err));
    client.once('close', () => reject(new Error('connection closed before CONNACK')));
  });
  return { client, connected };
}
