// The one entry `go` and `next` move the person through: a wait of this machine (go-to.ts), or
// of another host, over ssh (go-remote.ts, loaded only then).
import type { Io } from '../io.js'
import type { QueueItem } from '../queue/derive.js'
import type { QueueView } from '../queue/load.js'
import { LOCAL_HOST } from '../remote/host-name.js'
import { type GoDeps, type GoWay, goTo } from './go-to.js'

/** Takes the person to `item`, here or on its host (or prints how); returns the exit code. */
export const goToItem = async (item: QueueItem, view: Pick<QueueView, 'queue'>, way: GoWay, io: Io, deps: GoDeps): Promise<number> =>
  item.remote ? (await import('./go-remote.js')).goToRemote(item, view, way, io, deps) : goTo(item, view, way, io, deps)

/** Pure: the items of the hosts `--host` names (`local`: this machine), all without it. */
export const onHosts = <T extends Pick<QueueItem, 'remote'>>(items: readonly T[], hosts: readonly string[] | undefined): T[] =>
  hosts?.length ? items.filter((i) => hosts.includes(i.remote?.destination ?? LOCAL_HOST)) : [...items]
