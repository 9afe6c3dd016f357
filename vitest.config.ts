import { defineConfig } from 'vitest/config';
import solid from 'vite-plugin-solid';

const shared = { testTimeout: 20_000, hookTimeout: 20_000 };

// Two projects: the Solid plugin adds the `browser` resolve condition, which would hand Node-side
// tests the browser build of packages such as `ws`; so only the app's tests get the plugin.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [solid()],
        test: { ...shared, name: 'app', include: ['src/**/*.test.{ts,tsx}'], environment: 'node' },
      },
      {
        test: {
          ...shared,
          name: 'node',
          include: ['{protocol,sw,relay,machine,device,scripts}/**/*.test.ts'],
          environment: 'node',
        },
      },
    ],
  },
});
