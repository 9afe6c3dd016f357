import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import solid from 'vite-plugin-solid';
import { VitePWA } from 'vite-plugin-pwa';
import pkg from './package.json' with { type: 'json' };
import { LOOPBACK_HEADERS, META_CSP, OTHER_HEADERS } from './scripts/security-headers.ts';

/** P2: the content policy as a meta tag in the built index.html, first in <head> so it covers
 * every tag after it (for hosts that cannot set headers). Build only: the dev server injects
 * styles inline for hot reload, which the policy forbids. */
const metaCsp = (): Plugin => ({
  name: 'dsh-meta-csp',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: META_CSP },
      injectTo: 'head-prepend',
    },
  ],
});

/** A8: protocol/'s tweetnacl, for the app, is src/client/nacl-on-demand.ts, which loads the library
 * as a lazy chunk (the first screen needs no crypto). Only imports from protocol/ are redirected:
 * the shim's own import of 'tweetnacl/nacl-fast.js' and the service worker's build are not. */
const NACL_ON_DEMAND = fileURLToPath(new URL('./src/client/nacl-on-demand.ts', import.meta.url));
const naclOnDemand = (): Plugin => ({
  name: 'dsh-nacl-on-demand',
  enforce: 'pre',
  resolveId(id, importer) {
    if (id === 'tweetnacl' && importer?.includes('/protocol/')) return NACL_ON_DEMAND;
    return null;
  },
});

// The app is served from one origin everywhere (http://127.0.0.1:4173): `localhost` would be a
// different origin with its own service worker and IndexedDB.
export default defineConfig({
  plugins: [
    solid(),
    metaCsp(),
    naclOnDemand(),
    VitePWA({
      // Our own worker (sw/sw.ts): push, notification actions and the update prompt need code
      // that a generated worker cannot hold. Workbox only injects the precache list into it.
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      // The app registers through workbox-window (src/pwa/register.ts) to drive the update prompt.
      injectRegister: false,
      manifest: {
        id: '/',
        name: 'dsh dispatch',
        short_name: 'dispatch',
        description: 'Approve, answer and steer your coding agents from your phone.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        orientation: 'portrait',
        theme_color: '#0f172a',
        background_color: '#0f172a',
        lang: 'en',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          {
            src: '/icons/maskable-192.png',
            sizes: '192x192',
            type: 'image/png',
            purpose: 'maskable',
          },
          {
            src: '/icons/maskable-512.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
        ],
      },
      injectManifest: {
        rollupFormat: 'iife',
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        // The service worker itself is never precached; source maps are not needed offline.
        globIgnores: ['**/*.map'],
      },
      // A worker in dev caches stale code under the developer's feet: opt in with VITE_PWA_DEV=1.
      devOptions: { enabled: process.env.VITE_PWA_DEV === '1', type: 'module' },
    }),
  ],
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  // The manifest lets scripts/check-size.ts find exactly the JS a first visit loads. No source
  // maps in production (P2): they would publish the sources and serve for nothing offline.
  build: { target: 'es2022', sourcemap: false, manifest: true },
  // P2: `vite preview` (npm start, the e2e suite) sends the demo's policy on every response.
  preview: { host: '127.0.0.1', port: 4173, strictPort: true, headers: LOOPBACK_HEADERS },
  // The dev server sends the other headers (F5: COOP included) but no CSP: its hot reload injects
  // styles inline, which the policy forbids.
  server: { host: '127.0.0.1', port: 5173, headers: OTHER_HEADERS },
});
