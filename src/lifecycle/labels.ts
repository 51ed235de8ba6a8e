/** The label that marks a pull request as a deletion proposal (Porch's DeletionProposed). */
export const DELETION_LABEL = "porchlight/deletion";
