/** The package version, injected by vite.config.ts. */
declare const __APP_VERSION__: string;
