// glassbox's service worker: once the page has been loaded, it works offline. The build fills in BUILD and
// PRECACHE (the app's files, the model manifest and the default model); models fetched later, from this
// site or by URL, are kept as they arrive.
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
  if (request.method !== 'GET' || request.headers.has('range')) return;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin) {
    event.respondWith(cacheFirst(request, MODEL_CACHE)); // a model fetched by URL
    return;
  }
  if (!url.pathname.startsWith(scope.pathname)) return;
  const path = url.pathname.slice(scope.pathname.length);
  if (request.mode === 'navigate' || path === '' || path === 'index.html' || path === 'models/manifest.json') {
    event.respondWith(networkFirst(request));
  } else if (path.startsWith('models/')) {
    event.respondWith(cacheFirst(request, MODEL_CACHE));
  } else {
    event.respondWith(cacheFirst(request, APP_CACHE));
  }
});
