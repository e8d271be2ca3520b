public enum SwitchyardJSONPlaceholder {}
