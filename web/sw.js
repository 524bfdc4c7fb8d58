// glassbox's service worker: once the page has been loaded, it works offline. The build fills in BUILD and
// PRECACHE (the app's files, the model manifest and the default model); models fetched later, from this
// site or by URL, are kept as they arrive. The precache holds both engine builds (every file of the build),
// so the threaded one works offline too.
//
// Cross-origin isolation for hosts that cannot send headers (GitHub Pages): the worker adds
// Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy to the same-origin responses it serves that lack
// them, so a page it controls is cross-origin isolated and runs the threaded engine (docs/hosting.md). On by
// default: everything the page loads is its own (same-origin) or fetched with CORS (models by URL), which
// COEP require-corp allows, so the headers change nothing else. It never reloads the page to take effect:
// the first visit runs the single-threaded engine, visits after that (once this worker controls the page)
// the threaded one. Set ISOLATE to false to serve responses as they are.
const ISOLATE = true;
const BUILD = '__GLASSBOX_BUILD__';
const PRECACHE = __GLASSBOX_PRECACHE__;
const APP_CACHE = `glassbox-app-${BUILD}`;
const MODEL_CACHE = 'glassbox-models';

const scoped = (path) => new URL(path, self.registration.scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(APP_CACHE)
      .then((cache) => cache.addAll(PRECACHE.map(scoped)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('glassbox-app-') && k !== APP_CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** `response` with the isolation headers added, when it is a same-origin response that has none of its own. */
function isolated(response) {
  if (!ISOLATE || response.type !== 'basic' || response.headers.has('cross-origin-embedder-policy')) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  // A new Response: the headers of a fetched one are immutable. It is not `redirected`, which a navigation
  // answered by a service worker must not be.
  const nullBody = [101, 103, 204, 205, 304].includes(response.status);
  return new Response(nullBody ? null : response.body, { status: response.status, statusText: response.statusText, headers });
}

// The page and the manifest change between builds: ask the network first, fall back to the cache.
async function networkFirst(request) {
  const cache = await caches.open(APP_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached = (await cache.match(request, { ignoreSearch: true })) ??
      (request.mode === 'navigate' ? await cache.match(scoped('./')) : undefined);
    if (cached) return cached;
    throw error;
  }
}

// Hashed assets and model files never change under the same name: the cache first, then the network.
async function cacheFirst(request, cacheName) {
  const cached = await caches.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.status === 200 && (response.type === 'basic' || response.type === 'cors')) {
    const cache = await caches.open(cacheName);
    cache.put(request, response.clone()).catch(() => {}); // a full disk must not break the download
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // Hub catalog downloads (cache: 'no-store') keep their own copy in OPFS (web/src/worker/hub-cache.ts).
  if (request.method !== 'GET' || request.headers.has('range') || request.cache === 'no-store') return;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin) {
    event.respondWith(cacheFirst(request, MODEL_CACHE)); // a model fetched by URL
    return;
  }
  if (!url.pathname.startsWith(scope.pathname)) return;
  const path = url.pathname.slice(scope.pathname.length);
  let response;
  if (request.mode === 'navigate' || path === '' || path === 'index.html' || path === 'models/manifest.json') {
    response = networkFirst(request);
  } else if (path.startsWith('models/')) {
    response = cacheFirst(request, MODEL_CACHE);
  } else {
    response = cacheFirst(request, APP_CACHE);
  }
  event.respondWith(response.then(isolated));
});
