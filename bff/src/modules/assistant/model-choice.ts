/**
 * Which model answers a send (docs/decisions/028): the one asked for, if the workspace's plan
 * includes it; without one, the model the conversation last used while the plan still includes
 * it, else the plan's default (a downgrade falls back quietly).
 */
import { ApiError, hasPriorityAnswers, planWithModel } from '@tessera/contracts'
import type { AssistantModel, Entitlements } from '@tessera/contracts'

/** The refusal of a model the plan does not include, naming the plan that does. */
export function modelNotInPlan(model: AssistantModel, entitlements: Entitlements): ApiError {
  const plan = planWithModel(model)
  const yours = `your plan’s models: ${entitlements.models.join(', ')}.`
  return new ApiError('model_not_in_plan', {
    message:
      plan === null
        ? `${model} is not offered on any plan now. Pick one of ${yours}`
        : `${model} is included in the ${plan.name} plan, and this workspace is on ${entitlements.planName}. Upgrade to ${plan.name} to use it, or pick one of ${yours}`,
    details: { model, plan: plan?.id ?? null, allowed: entitlements.models },
  })
}

/** The model a send uses, or the `model_not_in_plan` refusal of the one it asked for. */
export function chooseModel(
  entitlements: Entitlements,
  requested: AssistantModel | undefined,
  remembered: AssistantModel | null | undefined,
): AssistantModel {
  const allowed = (model: AssistantModel | null | undefined): model is AssistantModel =>
    model != null && entitlements.models.includes(model)
  if (requested !== undefined) {
    if (!allowed(requested)) throw modelNotInPlan(requested, entitlements)
    return requested
  }
  return allowed(remembered) ? remembered : entitlements.defaultModel
}

/** Whether the workspace's plan gets the priority lane to the model. */
export const priorityOf = (entitlements: Entitlements): boolean =>
  hasPriorityAnswers(entitlements.plan)
