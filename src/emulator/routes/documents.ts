import {ENTITY_IDS_PARAM, ID_PREFIX, UNLINKABLE_PREFIXES} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {checkPathId} from '../path-id.js'
import {HttpError, listParam, ok} from '../http.js'
import type {EmulatorContext} from './context.js'

/**
 * DELETE …/document-association/{document_id}?entity_ids=eac_…,txn_…,je_…: unlinks the document
 * from every id given, all or nothing. Ids of any other kind are refused (422, naming them).
 * Unlinking an id that is not linked is not an error (a retried DELETE must not fail): the
 * answer says which ids were unlinked and which were not linked.
 */
export function register({router, state}: EmulatorContext): void {
  router.add('DELETE', '/v0/business/:business_id/document-association/:document_id', (ctx) => {
    requireAuth(state, ctx, SCOPES.documentDelete)
    const businessId = ctx.params.business_id as string
    const id = checkPathId('document_id', ctx.params.document_id as string, ID_PREFIX.document)
    const ids = listParam(ctx.query, ENTITY_IDS_PARAM)
    if (!ids)
      throw new HttpError(422, `${ENTITY_IDS_PARAM} is required: a comma-separated list of eac_, txn_ or je_ ids`, {
        field: ENTITY_IDS_PARAM,
      })
    const invalid = ids.filter((e) => !UNLINKABLE_PREFIXES.some((p) => e.startsWith(p)))
    if (invalid.length) {
      throw new HttpError(
        422,
        `Only external accounts (eac_), transactions (txn_) and journal entries (je_) can be unlinked, not ${invalid.join(', ')}`,
        {field: ENTITY_IDS_PARAM, invalid},
      )
    }
    const doc = state.documents.get(businessId, id)
    if (!doc) throw new HttpError(404, `Document ${id} not found`, {document_id: id})
    const unlinked: string[] = []
    const notLinked: string[] = []
    for (const e of new Set(ids)) (doc.associations.delete(e) ? unlinked : notLinked).push(e)
    return ok({data: {document_id: doc.id, unlinked, not_linked: notLinked, associations: [...doc.associations]}})
  })
}
