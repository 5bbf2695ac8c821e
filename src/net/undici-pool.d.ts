// Types for the undici modules that src/net/undici.ts loads by their paths.
declare module 'undici/lib/dispatcher/agent.js' {
  import {Agent} from 'undici'

  export default Agent
}

declare module 'undici/lib/dispatcher/pool.js' {
  import {Pool} from 'undici'

  export default Pool
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import {ProxyAgent} from 'undici'

  export default ProxyAgent
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import {Dispatcher} from 'undici'

  export default Dispatcher
}

declare module 'undici/lib/api/api-connect.js' {
  const connect: (...args: unknown[]) => unknown
  export default connect
}

declare module 'undici/lib/api/api-request.js' {
  const request: (...args: unknown[]) => unknown
  export default request
}
