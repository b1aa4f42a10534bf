// The example host on several processes: node:cluster shares one listening port between workers.
//   WORKERS=2 node example/cluster.js          (WORKERS defaults to the number of cores)
//   REDIS_URL=redis://127.0.0.1:6379 ...       one board, /slow's jobs and rate limits across all workers
// Without REDIS_URL each worker limits on its own (a client may get up to WORKERS x max) and keeps
// its own board and jobs (a job's address answers 404 on the other workers). Every variable of
// example/host.js applies; LOG_LEVEL defaults to warn here.
import cluster from 'node:cluster'
import { availableParallelism } from 'node:os'

const workers = Number(process.env.WORKERS ?? availableParallelism())

if (cluster.isPrimary) {
  process.env.LOG_LEVEL ??= 'warn'
  for (let i = 0; i < workers; i++) cluster.fork()
  cluster.on('exit', (worker, code) => {
    if (code !== 0) cluster.fork() // keep the pool full after a crash
  })
} else {
  await import('./host.js')
}
