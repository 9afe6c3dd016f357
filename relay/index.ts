// Placeholder so the tsconfig has an input; filled by its issue.
export {};
