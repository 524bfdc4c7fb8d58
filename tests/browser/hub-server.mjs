// A stand-in for the Hugging Face hub in the browser tests: serves a folder of random-weight GGUF files at the
// hub's paths (<repo>/resolve/<revision>/<file>), from another origin than the page, with what the page relies
// on from the real hub: CORS (with the headers it reads exposed), byte ranges (Range: bytes=N- answered 206),
// and each file's SHA-256 in X-Linked-Etag. It records every request (with its Range header) and can misbehave
// on purpose: trickle a file slowly, cut the connection halfway through a file once, or state a wrong SHA-256.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/**
 * @param {string} root
 * @returns {Promise<{url: string, requests: {method: string, path: string, range: string | null}[], slow: Set<string>,
 *   cutOnce: Set<string>, wrongSha: Set<string>, close(): Promise<void>}>}
 */
export async function startHubServer(root) {
  const state = { requests: [], slow: new Set(), cutOnce: new Set(), wrongSha: new Set() };
  const shaOf = new Map();
  const sha256 = (file) => {
    if (!shaOf.has(file)) shaOf.set(file, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
    return shaOf.get(file);
  };
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges, ETag, X-Linked-Etag, X-Linked-Size',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const range = req.headers.range ?? null;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'GET, HEAD' });
      return res.end();
    }
    state.requests.push({ method: req.method, path: pathname, range });
    const file = path.resolve(root, `.${pathname}`);
    if (!file.startsWith(path.resolve(root) + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { ...cors, 'Content-Type': 'text/plain' });
      return res.end('not found\n');
    }
    const bytes = fs.readFileSync(file);
    const sha = state.wrongSha.has(pathname) ? crypto.createHash('sha256').update('another file').digest('hex') : sha256(file);
    const from = range ? Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? NaN) : 0;
    if (range && !(from < bytes.length)) {
      res.writeHead(416, { ...cors, 'Content-Range': `bytes */${bytes.length}` });
      return res.end();
    }
    const body = bytes.subarray(from);
    res.writeHead(range ? 206 : 200, {
      ...cors,
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(body.length),
      'Accept-Ranges': 'bytes',
      'X-Linked-Etag': `"${sha}"`,
      'X-Linked-Size': String(bytes.length),
      ...(range ? { 'Content-Range': `bytes ${from}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    if (req.method === 'HEAD') return res.end();
    if (state.cutOnce.delete(pathname)) {
      // Half the file, then the connection drops, as a flaky network would.
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.socket?.destroy(), 50));
      return;
    }
    if (!state.slow.has(pathname)) return res.end(body);
    let offset = 0;
    const next = () => {
      if (res.destroyed) return;
      if (offset >= body.length) return res.end();
      res.write(body.subarray(offset, offset + 2048));
      offset += 2048;
      setTimeout(next, 100);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...state,
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}
