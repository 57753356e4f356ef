//! Enums whose variants SQL names (key kinds, table shapes, load methods, skew models, read
//! workloads): their list, names, parser and stored form come from the enum itself.

/// Declares an enum SQL names by its variants (snake_case: `CopyKeys` is `copy_keys`), with
/// strum's derives underneath, and gives it
/// - `ALL`: every variant, in declaration order;
/// - `name()`: the variant's name in SQL;
/// - `parse()`: a variant from its name, trimmed, in any case;
/// - `names()`: every name, comma-separated, for hints ("a, c, d");
/// - `from_u8()`: the variant stored as `v as u8` in a segment (None for a value none has).
///
/// A new variant then fails to compile in every `match` over the enum that must decide for it (no
/// `_ =>` arm stands in for a decision), and joins every list, parser and round trip by itself.
#[macro_export]
macro_rules! sql_enum {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $v:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash,
            strum::IntoStaticStr, strum::EnumString, strum::VariantArray, strum::FromRepr,
        )]
        #[strum(serialize_all = "snake_case", ascii_case_insensitive)]
        #[repr(u8)]
        $vis enum $name {
            $($(#[$vm])* $v),*
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = <$name as strum::VariantArray>::VARIANTS;

            /// The variant's name in SQL.
            pub fn name(self) -> &'static str {
                self.into()
            }

            /// The variant named `s` (trimmed, in any case), if any.
            pub fn parse(s: &str) -> Option<$name> {
                s.trim().parse().ok()
            }

            /// Every name, comma-separated.
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }

            /// The variant stored as `v` (its `as u8`), if any.
            pub fn from_u8(v: u8) -> Option<$name> {
                Self::from_repr(v)
            }
        }
    };
}

#[cfg(test)]
mod unit_tests {
    crate::sql_enum! {
        /// A test enum.
        enum Colour { Red, DeepBlue }
    }

    #[test]
    fn names_parse_and_stored_values_round_trip() {
        assert_eq!(Colour::ALL, &[Colour::Red, Colour::DeepBlue]);
        assert_eq!(Colour::DeepBlue.name(), "deep_blue");
        assert_eq!(Colour::parse("  Deep_BLUE "), Some(Colour::DeepBlue));
        assert_eq!(Colour::parse("deepblue"), None);
        assert_eq!(Colour::names(), "red, deep_blue");
        for c in Colour::ALL {
            assert_eq!(Colour::from_u8(*c as u8), Some(*c));
        }
        assert_eq!(Colour::from_u8(2), None);
    }
}
