import { api, type paths } from '../../common/api/client';
import { ProblemError, toProblem } from '../../common/api/problem';
import { fileNameOf } from './download-name';

/** Saves bytes the browser holds as a file (a Blob object URL and a download link). */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started by now; the URL can go once the browser has read it.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

type Result = { data?: Blob; error?: unknown; response: Response };

/**
 * Downloads go through the API client (a plain link would carry no bearer token): the bytes as a
 * Blob, saved under the server's file name. Returns that name; a refusal throws its ProblemError.
 */
async function saveAnswer(pending: Promise<Result>, fallback: string): Promise<string> {
  let result: Result;
  try {
    result = await pending;
  } catch {
    throw new ProblemError(toProblem(0, undefined));
  }
  if (!result.response.ok || !result.data)
    throw new ProblemError(toProblem(result.response.status, result.error));
  const name = fileNameOf(result.response.headers.get('content-disposition'), fallback);
  saveBlob(result.data, name);
  return name;
}

export function downloadInvoicePdf(id: string, number: string): Promise<string> {
  return saveAnswer(
    api.GET('/api/billing/invoice/{id}/pdf', {
      params: { path: { id } },
      parseAs: 'blob',
    }) as Promise<Result>,
    `${number}.pdf`,
  );
}

type CsvQuery = paths['/api/billing/invoice/export']['get']['parameters']['query'];

export function downloadInvoiceCsv(query: CsvQuery): Promise<string> {
  return saveAnswer(
    api.GET('/api/billing/invoice/export', { params: { query }, parseAs: 'blob' }) as Promise<Result>,
    `${query.kind === 'credit-note' ? 'credit-notes' : 'invoices'}-${query.period}-${query.format}.csv`,
  );
}
