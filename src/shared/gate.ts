/** At most `max` holders at once; the others wait, and enter in the order they asked. */
export class Gate {
  private active = 0
  private readonly waiting: Array<() => void> = []

  constructor(private readonly max: number) {}

  /** Resolves once there is room, with the release (a second call does nothing). */
  async enter(): Promise<() => void> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.active++
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}
