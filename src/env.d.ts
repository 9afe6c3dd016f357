/** The package version, injected by vite.config.ts. */
declare const __APP_VERSION__: string;

/** tweetnacl's fast build by its file name (nacl-on-demand.ts); the same API as the package. */
declare module 'tweetnacl/nacl-fast.js' {
  import nacl from 'tweetnacl';
  export default nacl;
}
