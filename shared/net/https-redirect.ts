import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { coveredHost } from './tls-server.js';

/**
 * The plain-HTTP port's only job (tls.httpRedirectPort): send a browser that typed the yard's
 * address without https:// to the HTTPS one. GET and HEAD get a 308 to the same host and path on
 * the HTTPS port. The host is taken from the request only when the certificate (`leaf`: the one
 * served now) covers it, so the
 * redirect never points anywhere else (no open redirect). Other methods are refused rather than
 * redirected: a client posting a password over plain HTTP has already sent it in clear, and a
 * redirect would hide the misconfiguration instead of making its operator fix the URL.
 *
 * No HSTS header (here or on HTTPS): with a private CA a phone that does not trust it yet would get
 * a certificate error it cannot click through, an HSTS host stays unreachable over HTTP for the
 * max-age even if HTTPS is turned off again, and browsers ignore HSTS for IP addresses, which is
 * how many yards reach their edge.
 */
export function redirectToHttps(leaf: () => X509Certificate, httpsPort: number): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const host = coveredHost(req.headers.host, leaf());
    if (!host) {
      problem(
        res,
        400,
        'host-not-covered',
        "The Host of this request is not a name in this server's certificate.",
      );
      return;
    }
    const portPart = httpsPort === 443 ? '' : `:${httpsPort}`;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      problem(
        res,
        400,
        'https-required',
        `This service is served over HTTPS: use https://${host}${portPart}.`,
      );
      return;
    }
    // An absolute-form request target (GET http://other/ HTTP/1.1) keeps only our host: path "/".
    const path = req.url?.startsWith('/') ? req.url : '/';
    res.writeHead(308, { location: `https://${host}${portPart}${path}`, 'content-length': '0' });
    res.end();
  };
}

function problem(res: ServerResponse, status: number, code: string, detail: string): void {
  const body = JSON.stringify({
    type: `urn:yard:problem:${code}`,
    title: 'Bad request',
    status,
    detail,
    code,
  });
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
