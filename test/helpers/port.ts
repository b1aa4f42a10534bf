import { once } from 'node:events'
import { createServer } from 'node:net'

/** A loopback port that was free a moment ago, for a child process to listen on. */
export async function freePort (): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}
