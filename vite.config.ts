import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

// The app is served from one origin everywhere (http://127.0.0.1:4173): `localhost` would be a
// different origin with its own service worker and IndexedDB.
export default defineConfig({
  plugins: [solid()],
  build: { target: 'es2022', sourcemap: true },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  server: { host: '127.0.0.1', port: 5173 },
});
