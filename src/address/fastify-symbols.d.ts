// Fastify's own symbols (read only by src/address/fastify-internals.ts), which it ships without types.
declare module 'fastify/lib/symbols.js' {
  const symbols: Readonly<Record<string, symbol | undefined>>
  export default symbols
}
