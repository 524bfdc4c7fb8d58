#!/usr/bin/env node
// A tiny static file server for the built site, used by `npm run serve` and by the browser tests.
// It can mount the site under a subfolder (--base /glassbox/) to prove the build only uses relative paths.
// It makes the page cross-origin isolated (COOP/COEP), so the page runs the threaded engine; --no-isolation
// serves without those headers, as a host that cannot set them would (docs/hosting.md). It sends the page's
// Content-Security-Policy as a header; --cors lets pages on other sites load its files (models).
//   node web/tools/static-server.mjs [DIR] [--port 4173] [--host 127.0.0.1] [--base /] [--bytes-per-second N] [--no-isolation] [--cors]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The headers that make a page cross-origin isolated (SharedArrayBuffer, so the threaded engine), sent with
 * every response: a Worker's script needs COEP too. CORP keeps the files to this site's own pages.
 */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * For a server of models that pages on other sites may load (`cors: true`; the tests' "other site"): CORS lets
 * them read the files, CORP lets isolated pages take them. Off by default: the site's own page needs neither.
 */
const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

/**
 * The Content-Security-Policy of the page in `htmlFile`, read from its <meta http-equiv> tag (web/index.html
 * states it, once), or null. Sent as a header too, since a meta tag does not reach the worker scripts.
 */
export function pagePolicy(htmlFile) {
  if (!fs.existsSync(htmlFile)) return null;
  const match = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(fs.readFileSync(htmlFile, 'utf8'));
  return match ? match[1] : null;
}

/**
 * Serves `root` under `base` ('/' or '/sub/'). Resolves to {url, port, close()}; `url` ends with `base`.
 * `onRequest(pathname)` sees every request (the tests use it to check which files the page fetched);
 * `bytesPerSecond` slows responses down, to watch progress bars; `isolation: false` leaves out ISOLATION_HEADERS;
 * `cors: true` adds CORS_HEADERS. Every response carries the policy of `root`/index.html (pagePolicy), if any.
 * @param {{root: string, base?: string, port?: number, host?: string, log?: boolean, onRequest?: (path: string) => void, bytesPerSecond?: number, isolation?: boolean, cors?: boolean}} options
 */
export function startStaticServer({ root, base = '/', port = 0, host = '127.0.0.1', log = false, onRequest, bytesPerSecond, isolation = true, cors = false }) {
  const rootDir = path.resolve(root);
  const prefix = `/${base.replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const policy = pagePolicy(path.join(rootDir, 'index.html'));
  const headersForAll = {
    ...(isolation ? ISOLATION_HEADERS : {}),
    ...(cors ? CORS_HEADERS : {}),
    ...(policy ? { 'Content-Security-Policy': policy } : {}),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    onRequest?.(url.pathname);
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headersForAll, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
      if (log) console.log(`${status} ${req.method} ${url.pathname}`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    if (url.pathname === prefix.slice(0, -1)) return send(301, '', { Location: prefix });
    if (!url.pathname.startsWith(prefix)) return send(404, 'not found\n');
    let relative;
    try {
      relative = decodeURIComponent(url.pathname.slice(prefix.length));
    } catch {
      return send(400, 'bad path\n');
    }
    let file = path.resolve(rootDir, relative || 'index.html');
    if (file !== rootDir && !file.startsWith(rootDir + path.sep)) return send(403, 'forbidden\n');
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) return send(404, 'not found\n');
    const stat = fs.statSync(file);
    const ext = path.extname(file).toLowerCase();
    const revalidate = ext === '.html' || path.basename(file) === 'sw.js' || path.basename(file) === 'manifest.json';
    res.writeHead(200, {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Content-Length': String(stat.size),
      'Cache-Control': revalidate ? 'no-cache' : 'public, max-age=3600',
      ...headersForAll,
    });
    if (log) console.log(`200 ${req.method} ${url.pathname}`);
    if (req.method === 'HEAD') return res.end();
    if (bytesPerSecond) return trickle(fs.readFileSync(file), res, bytesPerSecond);
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        url: `http://${host}:${actual}${prefix}`,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Sends `bytes` in 16 KiB chunks at about `rate` bytes per second. */
function trickle(bytes, res, rate) {
  const chunk = 16 * 1024;
  let offset = 0;
  const next = () => {
    if (res.destroyed) return;
    if (offset >= bytes.length) return res.end();
    res.write(bytes.subarray(offset, offset + chunk));
    offset += chunk;
    setTimeout(next, (chunk / rate) * 1000);
  };
  next();
}

function parseArgs(argv) {
  const options = { root: 'dist', port: 4173, host: '127.0.0.1', base: '/' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port') options.port = Number(argv[++i]);
    else if (arg === '--host') options.host = argv[++i];
    else if (arg === '--base') options.base = argv[++i];
    else if (arg === '--bytes-per-second') options.bytesPerSecond = Number(argv[++i]);
    else if (arg === '--no-isolation') options.isolation = false;
    else if (arg === '--cors') options.cors = true;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else options.root = arg;
  }
  return options;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    console.log('usage: static-server.mjs [DIR=dist] [--port 4173] [--host 127.0.0.1] [--base /] [--bytes-per-second N] [--no-isolation] [--cors]');
    process.exit(0);
  }
  if (!fs.existsSync(path.join(options.root, 'index.html'))) {
    console.error(`static-server: ${options.root}/index.html does not exist; run \`npm run build\` first`);
    process.exit(1);
  }
  const { url } = await startStaticServer({ ...options, log: true });
  console.log(`glassbox: serving ${path.resolve(options.root)} at ${url}`);
}
