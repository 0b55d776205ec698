"""The transforms a render goes through after parsing: small steps ``(manifests, diagnostics) ->
manifests`` that never mutate their input. ``plan.plan`` builds the typed list for one render from
the settings, before any tool runs; ``plan.run`` applies it."""
