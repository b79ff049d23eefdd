-- A version's diagram as drawn in a BPMN modeler (docs/bpmn.md): the shapes of its nodes and the
-- lines of its edges. Kept beside the definition, not in it: the same definition drawn again is the
-- same version, and the diagram it was first given is the one it keeps.
alter table workflow_versions add column diagram jsonb;
