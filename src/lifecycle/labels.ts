/** The label that marks a pull request as a deletion proposal (Porch's DeletionProposed). */
export const DELETION_LABEL = "porchlight/deletion";

/**
 * The label that marks a merged proposal whose published revision was deleted since: the record that it
 * was published once and must not be published again. The sweep reads it in the listing it already
 * makes (recently closed pull requests, labels included); the publish refuses a merge so labelled that
 * carries no tag (docs/porch.md, "Deleting a revision").
 */
export const DELETED_LABEL = "porchlight/deleted";
