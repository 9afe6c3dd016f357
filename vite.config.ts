import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';
import pkg from './package.json' with { type: 'json' };

// The app is served from one origin everywhere (http://127.0.0.1:4173): `localhost` would be a
// different origin with its own service worker and IndexedDB.
export default defineConfig({
  plugins: [solid()],
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  // The manifest lets scripts/check-size.ts find exactly the JS a first visit loads.
  build: { target: 'es2022', sourcemap: true, manifest: true },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  server: { host: '127.0.0.1', port: 5173 },
});
