// Filled by its issue; see docs/protocol-api.md.
export {};
