// Placeholder so bench/tsconfig.json has an input; benchmarks land with their issues.
export {};
