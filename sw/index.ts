// Placeholder so sw/tsconfig.json has an input; the push issue fills this folder.
export {};
