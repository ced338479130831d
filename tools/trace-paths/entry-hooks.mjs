// Module hooks for the path tracer (tools/trace-path.ts): each product module, as tsx has made it
// JavaScript, gets one call at the start of every function body, `globalThis.__tracePathEnter(file)`,
// so the tracer sees every entry into a product file in the order it happens. Nothing on disk changes.
import ts from 'typescript';

let root = '';

export function initialize(data) {
  root = data.root;
}

const PRODUCT = /^(shared|edge|cloud)\//;
const NOT_PRODUCT = /(^|\/)(node_modules|test|migrations)\//;

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.startsWith(`file://${root}/`) || loaded.format !== 'module') return loaded;
  const file = decodeURIComponent(url.slice(`file://${root}/`.length)).replace(/[?#].*$/, '');
  if (!PRODUCT.test(file) || NOT_PRODUCT.test(file) || !/\.[cm]?[jt]sx?$/.test(file)) return loaded;
  const source =
    typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8');
  return { ...loaded, source: instrument(source, file) };
}

function instrument(source, file) {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const call = `globalThis.__tracePathEnter?.(${JSON.stringify(file)})`;
  const inserts = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const body = node.body;
      if (ts.isBlock(body)) inserts.push([body.getStart(sf) + 1, `${call};`]);
      else {
        inserts.push([body.getStart(sf), `(${call}, `]);
        inserts.push([body.end, ')']);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  inserts.sort((a, b) => b[0] - a[0]);
  let out = source;
  for (const [at, text] of inserts) out = out.slice(0, at) + text + out.slice(at);
  return out;
}
