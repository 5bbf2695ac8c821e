/**
 * undici's dispatchers without the rest of undici. undici's index loads all of it (fetch,
 * WebSocket, caches, mocks) and, through globalThis.Headers, Node's own copy of undici besides:
 * about a quarter of an API command's start-up. These are the lines of that index the
 * dispatchers bk uses need, and of its API request(), the one bk calls, and connect(), which
 * ProxyAgent calls to open a CONNECT tunnel.
 */
import connect from 'undici/lib/api/api-connect.js'
import request from 'undici/lib/api/api-request.js'
import Agent from 'undici/lib/dispatcher/agent.js'
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js'
import Pool from 'undici/lib/dispatcher/pool.js'
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js'

// As undici's index does: request() and connect() are methods of every Dispatcher.
Object.assign(Dispatcher.prototype, {connect, request})

export {Agent, Pool, ProxyAgent}
