import { useEffect, useRef } from 'react'
import type { SlotName, SlotProps } from '@tessera/contracts/plugin'
import { usePlatform } from './platform.tsx'

/**
 * A place in this plugin's page where other plugins' content for `slot` appears (the auth
 * remote's account page hosts `account.section`). The host mounts them (`platform.slots`,
 * contract 1.1), each isolated with its own fallback; on an older host the area stays empty.
 * Props are read when the area mounts: give it a `key` to show the slot for other props.
 */
export function SlotArea<S extends SlotName>({
  slot,
  props,
  className,
}: {
  slot: S
  props: SlotProps[S]
  className?: string
}) {
  const platform = usePlatform()
  const ref = useRef<HTMLDivElement>(null)
  const propsRef = useRef(props)
  useEffect(() => {
    const el = ref.current
    if (el === null || platform.slots === undefined) return
    return platform.slots.mount(slot, el, propsRef.current)
  }, [platform, slot])
  return <div ref={ref} className={className} data-tessera-slot-area={slot} />
}
