import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react'
import type { Conversation } from '@tessera/contracts/assistant'
import type { AssistantModel } from '@tessera/contracts/plan-values'
import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import type { Platform } from '@tessera/contracts/platform'
import type { AssistantApi } from '../../../lib/assistant-api.ts'
import { billingPlansPath } from '../../../lib/paths.ts'
import '../model-picker.css'

/** The picker's state for the conversation on screen (`key`: its id, or `new`). */
export interface ModelChoice {
  /** The plan's models (empty before the session is known: no picker, the BFF's default). */
  models: readonly AssistantModel[]
  value: AssistantModel | undefined
  /** The conversation's model when the plan no longer includes it (the picker shows the default). */
  leftPlan: AssistantModel | null
  choose(model: AssistantModel): void
}

/**
 * The model shown in the page's picker, for the sends of that page's store (which read it when
 * they leave): one per platform, as one assistant page is mounted per platform.
 */
const shownModels = new WeakMap<Platform, { current: AssistantModel | undefined }>()
const shownModelOf = (platform: Platform) => {
  let shown = shownModels.get(platform)
  if (shown === undefined) {
    shown = { current: undefined }
    shownModels.set(platform, shown)
  }
  return shown
}

/** The assistant's API whose sends carry the model the page's picker shows. */
export function withModel(api: AssistantApi, platform: Platform): AssistantApi {
  const shown = shownModelOf(platform)
  return {
    ...api,
    sendMessage: (conversationId, content, signal, options = {}) =>
      api.sendMessage(conversationId, content, signal, { ...options, model: shown.current }),
  }
}

/**
 * The model of the next send, per conversation: what the person picked here, else the model the
 * conversation last used (from the BFF) while the plan includes it, else the plan's default. A
 * new conversation starts on the default, and its pick follows it once it is created.
 */
export function useModelChoice(key: string, conversation: Conversation | null): ModelChoice {
  const platform = usePlatform()
  const session = useSession()
  const entitlements = session.status === 'signed-in' ? session.entitlements : undefined
  const models = entitlements?.models ?? []
  const [picks, setPicks] = useState<Readonly<Record<string, AssistantModel>>>({})

  // The first send of a new conversation moves the page to it: the pick moves with it.
  const previousKey = useRef(key)
  useEffect(() => {
    const previous = previousKey.current
    previousKey.current = key
    if (previous !== 'new' || key === 'new') return
    setPicks(({ new: picked, ...rest }) =>
      picked === undefined || rest[key] !== undefined ? rest : { ...rest, [key]: picked },
    )
  }, [key])

  const allowed = (model: AssistantModel | null | undefined): model is AssistantModel =>
    model != null && models.includes(model)
  const remembered = conversation?.model ?? null
  const picked = picks[key]
  const value = allowed(picked)
    ? picked
    : allowed(remembered)
      ? remembered
      : entitlements?.defaultModel

  useLayoutEffect(() => {
    shownModelOf(platform).current = value
  }, [platform, value])

  return {
    models,
    value,
    leftPlan: !allowed(picked) && remembered !== null && !allowed(remembered) ? remembered : null,
    choose: (model) => setPicks((all) => ({ ...all, [key]: model })),
  }
}

/**
 * The model the next answer is written by: a native select (keyboard and screen readers know it),
 * listing the plan's models only. With one model there is nothing to choose; it is still named.
 */
export function ModelPicker({ choice }: { choice: ModelChoice }) {
  const { models, value, leftPlan } = choice
  const id = useId()
  // Before the session is known there is nothing to pick from: the BFF uses the default.
  if (value === undefined) return null
  const noteId = `${id}-note`
  return (
    <div className="model-picker">
      <label htmlFor={id} className="model-picker__label">
        Model
      </label>
      <select
        id={id}
        className="model-picker__select"
        value={value}
        onChange={(event) => choice.choose(event.target.value as AssistantModel)}
        aria-describedby={leftPlan ? noteId : undefined}
      >
        {models.map((model, index) => (
          <option key={model} value={model}>
            {index === 0 ? `${model} (default)` : model}
          </option>
        ))}
      </select>
      {leftPlan ? (
        <p id={noteId} className="model-picker__note">
          {leftPlan} is no longer in your plan, so answers here use {value}.{' '}
          <AppLink to={billingPlansPath}>See plans</AppLink>
        </p>
      ) : models.length === 1 ? (
        <AppLink className="model-picker__more" to={billingPlansPath}>
          More models
        </AppLink>
      ) : null}
    </div>
  )
}
