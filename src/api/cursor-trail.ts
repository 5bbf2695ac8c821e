/**
 * The cursors one listing has followed. A service that hands out a cursor it gave before would
 * have bk ask for the same pages forever (an export to --file growing without end): the second
 * time a cursor comes, the listing stops with an error naming it.
 */
import {ResponseShapeError} from './errors.js'

export class CursorTrail {
  private readonly seen = new Set<string>()
  private pages = 0

  /** `what` is the request, for the message (`GET /v0/business/…/invoice`); `start`, the cursor it began at. */
  constructor(
    private readonly what: string,
    start?: string,
  ) {
    if (start) this.seen.add(start)
  }

  /** Records the next page's cursor, read from page number `pages + 1`; throws when it came before. */
  follow(cursor: string): void {
    this.pages++
    if (this.seen.has(cursor))
      throw new ResponseShapeError(
        `Unexpected response from ${this.what}: page ${this.pages} gave next_page_token "${cursor}", a cursor this listing already followed; following it again would repeat the same pages without end, so bk stopped after ${this.pages} pages`,
        {next_page_token: cursor, pages: this.pages},
      )
    this.seen.add(cursor)
  }
}
