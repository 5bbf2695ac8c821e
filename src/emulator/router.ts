/**
 * A small method + path router: `/v0/business/:business_id/bills`. Handlers get the parsed
 * request and return a Reply or throw HttpError.
 */
import {HttpError, type Reply} from './http.js'
import type {RequestContext} from './types.js'

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>

interface Route {
  method: string
  pattern: string
  regex: RegExp
  names: string[]
  handler: Handler
}

export class Router {
  private readonly routes: Route[] = []

  add(method: string, pattern: string, handler: Handler): void {
    const names: string[] = []
    const regex = new RegExp(
      '^' +
        pattern.replace(/:([a-z_]+)/g, (_, name: string) => {
          names.push(name)
          return '([^/]+)'
        }) +
        '/?$',
    )
    this.routes.push({method, pattern, regex, names, handler})
  }

  /** The handler for a request, or an HttpError 404/405. */
  match(method: string, path: string): {handler: Handler; params: Record<string, string>} {
    let pathMatched = false
    for (const route of this.routes) {
      const m = route.regex.exec(path)
      if (!m) continue
      pathMatched = true
      if (route.method !== method) continue
      const params: Record<string, string> = {}
      route.names.forEach((name, i) => {
        params[name] = decodeSegment(m[i + 1] ?? '', name)
      })
      return {handler: route.handler, params}
    }
    if (pathMatched) throw new HttpError(405, `Method ${method} is not allowed on ${path}`)
    throw new HttpError(404, `No route for ${method} ${path}`)
  }
}

/** A path segment's text; a malformed percent-escape (`%zz`, a cut UTF-8 sequence) is the client's error. */
function decodeSegment(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new HttpError(400, `The path segment ${name} is not valid percent-encoded UTF-8`, {
      field: name,
      value: segment,
    })
  }
}
