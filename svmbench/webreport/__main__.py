from svmbench.webreport.build import main

if __name__ == "__main__":  # spawned workers import this module too
    main()
