//! Only the indexes a registry's discoverers rank with are built: none before the first
//! discoverer or `discover_tools`, one per profile in use, the other built lazily (once) when a
//! discoverer of the other profile appears, and kept in step from then on.

use toolregistry::{DiscoverRequest, DiscoveryOptions, Profile, Registry};

const TOOLS: &str = r#"[
  {"name": "get_weather", "description": "Current weather for a city, in celsius.", "metadata": {"defer": true}},
  {"name": "send_email", "description": "Send an email message to a recipient."},
  {"name": "read_file", "description": "Read a file from disk.", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Where the file is."}}}},
  {"name": "list_files", "description": "List the files of a directory."}
]"#;

/// Whether a registry holds one profile's index.
type HasIndex = fn(&Registry) -> bool;

fn names(d: &toolregistry::Discoverer, q: &str) -> Vec<String> {
    d.discover(q, &DiscoverRequest::default())
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .collect()
}

#[test]
fn a_registry_without_discoverers_builds_no_index() {
    let r = Registry::new();
    r.register_json(TOOLS).unwrap();
    assert!(!r.has_reference_index().unwrap());
    assert!(!r.has_enhanced_index().unwrap());
}

#[test]
fn each_profile_builds_only_its_own_index_and_switching_builds_the_other_once() {
    for first in [Profile::Enhanced, Profile::Reference] {
        let r = Registry::new();
        r.register_json(TOOLS).unwrap();
        r.enable_discovery(DiscoveryOptions::for_profile(first))
            .unwrap();
        let (has_first, has_other): (HasIndex, HasIndex) = match first {
            Profile::Enhanced => (
                |r| r.has_enhanced_index().unwrap(),
                |r| r.has_reference_index().unwrap(),
            ),
            Profile::Reference => (
                |r| r.has_reference_index().unwrap(),
                |r| r.has_enhanced_index().unwrap(),
            ),
            Profile::Hybrid => unreachable!("hybrid ranks on the enhanced index"),
        };
        assert!(has_first(&r) && !has_other(&r), "{first:?}");
        let same = r.discoverer(DiscoveryOptions::for_profile(first));
        assert!(
            !has_other(&r),
            "{first:?}: a second discoverer of the same profile"
        );
        // Changes while only one index exists.
        r.register_json(r#"{"name": "delete_file", "description": "Delete a file."}"#)
            .unwrap();
        r.unregister("send_email").unwrap();
        r.set_enabled("list_files", false).unwrap();
        assert!(r.verify_index().unwrap());
        assert!(!has_other(&r));
        let other_profile = match first {
            Profile::Enhanced => Profile::Reference,
            Profile::Reference | Profile::Hybrid => Profile::Enhanced,
        };
        let other = r.discoverer(DiscoveryOptions::for_profile(other_profile));
        assert!(has_first(&r) && has_other(&r));
        // Built from the registry as it is now, and kept in step after.
        assert_eq!(names(&other, "file"), ["delete_file", "read_file"]);
        r.set_enabled("list_files", true).unwrap();
        r.register_json(r#"{"name": "send_sms", "description": "Send a text message."}"#)
            .unwrap();
        assert!(r.verify_index().unwrap());
        assert!(names(&other, "send message").contains(&"send_sms".to_string()));
        assert!(names(&same, "send message").contains(&"send_sms".to_string()));
        // A fresh registry with the same tools in the same order answers the same.
        let fresh = Registry::new();
        for t in [
            "get_weather",
            "read_file",
            "list_files",
            "delete_file",
            "send_sms",
        ] {
            let tool = r.tool(t).unwrap().unwrap();
            fresh.register(vec![tool]).unwrap();
        }
        for p in [first, other_profile] {
            let a = r.discoverer(DiscoveryOptions::for_profile(p));
            let b = fresh.discoverer(DiscoveryOptions::for_profile(p));
            for q in ["file", "weather celsius", "send message", "directory files"] {
                assert_eq!(names(&a, q), names(&b, q), "{p:?} {q}");
            }
        }
    }
}
