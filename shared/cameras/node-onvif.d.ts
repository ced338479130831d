/**
 * The parts of node-onvif 0.1.7 (CommonJS, no bundled types) that shared/cameras/onvif-client.ts uses. Shapes follow
 * lib/node-onvif.js and lib/modules/device.js; values parsed from XML by xml2js are strings, or
 * objects with `_` text when the element carried attributes.
 */
declare module 'node-onvif' {
  /** Types only; the module's value is the `onvif` singleton below. */
  namespace onvif {
    /** What xml2js made of an element: its text, or an object with `_` text and `$` attributes. */
    type XmlText = string | { _?: string; $?: Record<string, string> } | undefined;

    interface DeviceInformation {
      Manufacturer?: XmlText;
      Model?: XmlText;
      FirmwareVersion?: XmlText;
      SerialNumber?: XmlText;
      HardwareId?: XmlText;
    }

    interface DeviceProfile {
      token: string;
      name: XmlText;
      /** '' when the camera gave no snapshot URI. */
      snapshot: string;
      /** '' for each protocol the camera refused. */
      stream: { udp: string; http: string; rtsp: string };
      video: {
        source: {
          token: string;
          name: XmlText;
          bounds: { width: number; height: number; x: number; y: number };
        } | null;
        encoder: {
          token: string;
          name: XmlText;
          resolution: { width: number; height: number };
          quality: number;
          framerate: number;
          bitrate: number;
          encoding: XmlText;
        } | null;
      };
    }

    interface OnvifDeviceConstructor {
      /** Throws when user or pass holds characters it cannot put in SOAP (non-ASCII, '<', '>'). */
      new (params: { xaddr: string; user?: string; pass?: string }): OnvifDevice;
    }

    interface OnvifDevice {
      /** GetSystemDateAndTime, GetCapabilities, GetDeviceInformation, GetProfiles, GetStreamUri, GetSnapshotUri. */
      init(): Promise<DeviceInformation | null>;
      getInformation(): DeviceInformation | null;
      getProfileList(): DeviceProfile[];
    }

    /** One WS-Discovery ProbeMatch, deduplicated by urn. */
    interface ProbeResult {
      urn: string;
      /** From the onvif://www.onvif.org/name/ scope, '_' turned into spaces; '' when absent. */
      name: string;
      hardware: string;
      location: string;
      types: string[] | '';
      xaddrs: string[];
      scopes: string[];
    }

    /** The module's singleton. The underscored fields are read by startProbe() on every call. */
    interface Onvif {
      OnvifDevice: OnvifDeviceConstructor;
      /** Probes are sent here: ONVIF's multicast group by default, a unicast address for tests. */
      _MULTICAST_ADDRESS: string;
      _PORT: number;
      /** How long startProbe() collects answers before it resolves, in ms. */
      _DISCOVERY_WAIT: number;
      /** Pause between the probe datagrams (3 device types x _DISCOVERY_RETRY_MAX), in ms. */
      _DISCOVERY_INTERVAL: number;
      _DISCOVERY_RETRY_MAX: number;
      /** The SOAP helper shared by every device; HTTP_TIMEOUT is its per-request socket timeout (ms). */
      _OnvifSoap: { HTTP_TIMEOUT: number };
      startProbe(): Promise<ProbeResult[]>;
      stopProbe(): Promise<void>;
    }
  }

  const onvif: onvif.Onvif;
  export = onvif;
}
